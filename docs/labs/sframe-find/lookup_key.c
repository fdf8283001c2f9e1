{
	/* Lab sframe-find: pc's offset in fde's rows (PLT blocks repeat). */
	(void)fde;
	(void)pc;
	(void)key;
	return SF_E_NO_FDE;
}
