/*
 * Frame row entries: the reader of one (its layout and inline decoder
 * are in sframe/read.h). FREs are variable-sized, so a function's FREs can
 * only be walked in order: off is the first one's, then each one's end.
 */
#include "read.h"

int sf_fre_read(const struct sf_table *t, const struct sf_fde *fde,
		uint32_t off, struct sf_fre *fre)
{
	uint64_t end = (uint64_t)t->fres + t->fre_len;
	uint32_t asz = sf_addr_size(fde->fre_type);
	uint8_t b[5] = { 0 };
	int err;

	if (off < t->fres || (uint64_t)off + asz + 1 > end)
		return SF_E_FRE_BOUNDS;
	if ((err = sf_get(&t->src, off, asz, b)) ||
	    (err = sf_get(&t->src, (uint64_t)off + asz, 1, b + asz)))
		return err;
	return fill(t, sf_kind(&t->src), asz, off, start_addr(b, fde->fre_type), b[asz], fre);
}
