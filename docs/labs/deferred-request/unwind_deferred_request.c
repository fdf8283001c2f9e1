{
	static bool said;
	/* Lab deferred-request: mark work's bit, give the entry's cookie,
	 * queue the task work once per entry. */
	(void)work;
	(void)cookie;
	(void)new_cookie;
	(void)queue_task_work;
	if (!said)
		kprintf("lab deferred-request: unwind_deferred_request not implemented\n");
	said = true;
	return -STITCH_EINVAL;
}
