{
	/* Lab return-to-user: run current's task work, in the order queued
	 * (until then the unwind's task work never runs: its stub says so). */
}
