{
	/* Lab return-to-user: run current's task work, in the order queued.
	 * Until then the work is dropped, and the flag cleared so that the
	 * return to user does not come back for it forever. */
	task_clear_pending(current, TIF_TASK_WORK);
}
