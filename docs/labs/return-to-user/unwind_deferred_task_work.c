{
	static bool said;
	/* Lab return-to-user: the unwind, for every consumer that asked. */
	(void)w;
	(void)process_unwind_deferred;
	if (!said)
		kprintf("lab return-to-user: unwind_deferred_task_work not implemented\n");
	said = true;
}
