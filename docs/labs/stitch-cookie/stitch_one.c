{
	/* Lab stitch-cookie: k's user stack, from the record of its cookie. */
	(void)cookies;
	(void)cookie;
	(void)c;
	k->user = USER_MISSING;
}
