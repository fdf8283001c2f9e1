{
	/* Lab ehframe-cfa: move the location by delta code units. */
	(void)r;
	(void)delta;
	eh_fail(c, EH_E_UNSUPPORTED);
}
