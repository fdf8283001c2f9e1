{
	/* Lab deferred-request: may t return to ring 3 now? If so, its
	 * entry ends: the next request is a new entry's. */
	(void)t;
	return true;
}
