/* SPDX-License-Identifier: MIT */
/*
 * Where an agent may send its enrolment token and credential (docs/agent.md): the URL
 * given with --workspace, parsed by libcurl's URL API (curl_url, the parser the
 * transport then connects with), decided on the host it parses to, before anything
 * connects:
 *   - https:// to any host (the certificate is checked);
 *   - http:// only to a literal loopback address (127.0.0.0/8, [::1]): a secret in plain
 *     HTTP never leaves the machine, whatever a name resolves to ("localhost" included);
 *   - never a user or password in it ("http://localhost:1@192.0.2.2:7499" is a user
 *     "localhost" on 192.0.2.2), a query or a fragment; no other scheme.
 */
#ifndef SLIDEOPS_AGENT_WORKSPACE_URL_H
#define SLIDEOPS_AGENT_WORKSPACE_URL_H

/* 0 when the agent may use url; -EINVAL not a URL it may use at all; -EPERM plain HTTP
 * to a host that is not a literal loopback address. */
int workspace_url__check(const char *url);

#endif
