{
	/* Lab rule-cache: remember pc's rule (q, NULL: pc has none) in its
	 * set, newest first. */
	static bool said;
	(void)l;
	(void)pc;
	(void)q;
	if (!said)
		kprintf("lab rule-cache: cache_put not implemented\n");
	said = true;
}
