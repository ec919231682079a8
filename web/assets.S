/* The web assets, embedded into the binary as NUL-terminated strings. */
	.section .rodata
	.global flamegraph_html
flamegraph_html:
	.incbin "flamegraph.html"
	.byte 0
	.section .note.GNU-stack,"",@progbits
