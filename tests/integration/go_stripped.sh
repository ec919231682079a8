#!/usr/bin/env bash
# Go: a binary linked with -ldflags=-s lands on the card without a build id; one built
# with -B=gobuildid and stripped is named by uploading its unstripped build.
source "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is not installed (make deps installs golang-go)"

mkdir -p "$WORK/goapp" && cd "$WORK/goapp"
cat > main.go <<'GO'
package main

//go:noinline
func settleLedger(n int) int {
	acc := 0
	for i := 0; i < n; i++ {
		acc += i*i ^ (acc >> 3)
	}
	return acc
}

var sink int

func main() {
	for {
		sink = settleLedger(50000000)
	}
}
GO
export GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath" GOFLAGS=-mod=mod GO111MODULE=off
go build -ldflags=-s -o "$WORK/go-noid" main.go
# -B=gobuildid (Go 1.20 on) derives the note from Go's own build id; older linkers
# (Debian 12 ships 1.19) take an explicit one. Either way the binary gets a GNU build id.
if ! go build -ldflags=-B=gobuildid -o "$WORK/go-full" main.go 2>/dev/null; then
	go build -ldflags="-B 0x$(sha1sum main.go | cut -c1-40)" -o "$WORK/go-full" main.go
fi
cp "$WORK/go-full" "$WORK/go-ledger" && strip "$WORK/go-ledger"
build_id=$(readelf -n "$WORK/go-ledger" | awk '/Build ID/ { print $3 }' | head -1)
[ -n "$build_id" ] || fail "-B=gobuildid gave no build id"

cg=$(make_cgroup system.slice/slideops-test-goledger.service)
start_in_cgroup "$cg" "$WORK/go-noid" >/dev/null
start_in_cgroup "$cg" "$WORK/go-ledger" >/dev/null
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/c.json" || fail "capture failed"
jq -e --arg p "$WORK/go-noid" '.stripped | map(select(.path == $p and .has_build_id == false))
	| length == 1' "$WORK/c.json" >/dev/null ||
	fail "go -ldflags=-s is not on the card without a build id: $(jq -c .stripped "$WORK/c.json")"
jq -e --arg p "$WORK/go-ledger" --arg b "$build_id" '.stripped | map(select(.path == $p
	and .build_id == $b)) | length == 1' "$WORK/c.json" >/dev/null ||
	fail "the stripped gobuildid binary is not on the card with its build id"
jq -e '[.functions[] | select(.language == "Go")] | length > 0' "$WORK/c.json" >/dev/null ||
	fail "no Go frames: $(jq -c '.functions[:5]' "$WORK/c.json")"

"$SLIDEOPS" symbols upload "$WORK/go-full" >/dev/null || fail "upload of the unstripped Go build refused"
"$SLIDEOPS" show "$(jq -r .id "$WORK/c.json")" --json > "$WORK/after.json"
jq -e '[.functions[].name] | index("main.settleLedger") != null' "$WORK/after.json" >/dev/null ||
	fail "main.settleLedger not named after the upload: $(jq -c '[.functions[].name][:10]' "$WORK/after.json")"
echo "go stripped: ok"
