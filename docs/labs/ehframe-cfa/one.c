{
	/* Lab ehframe-cfa: decode and apply one CFA instruction. */
	(void)r;
	(void)set_col;
	(void)restore;
	(void)factored;
	(void)uoff;
	(void)extended;
	eh_fail(c, EH_E_UNSUPPORTED);
}
