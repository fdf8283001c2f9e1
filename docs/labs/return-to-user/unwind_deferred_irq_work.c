{
	/* Lab return-to-user: the self-IPI's half of an NMI's request. */
	(void)iw;
	kprintf("lab return-to-user: unwind_deferred_irq_work not implemented\n");
}
