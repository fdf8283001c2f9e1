{
	/* Lab sframe-find: the last row starting at or before key. */
	(void)t;
	(void)k;
	(void)asz;
	(void)first_fre;
	(void)num_fres;
	(void)key;
	(void)limit;
	(void)best;
	(void)work;
	return SF_E_NO_FRE;
}
