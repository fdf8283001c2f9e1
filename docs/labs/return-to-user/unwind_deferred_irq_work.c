{
	static bool said;
	/* Lab return-to-user: the self-IPI's half of an NMI's request.
	 * Until then the request is dropped, its PENDING bit cleared so
	 * that the task may still return to ring 3. */
	struct unwind_task_info *info = container_of(iw, struct unwind_task_info, irq);
	__atomic_fetch_and(&info->state, ~STATE_PENDING, __ATOMIC_SEQ_CST);
	if (!said)
		kprintf("lab return-to-user: unwind_deferred_irq_work not implemented\n");
	said = true;
}
