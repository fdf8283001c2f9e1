{
	/* Lab deferred-request: a cookie no other kernel entry had. */
	(void)cpu;
	(void)cookie_counter;
	return 0;
}
