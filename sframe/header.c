/*
 * The header check: sf_open().
 */
#include "internal.h"

static bool flags_ok(uint8_t version, uint8_t flags)
{
	uint8_t known = SF_F_FDE_SORTED;
	if (version <= 2)
		known |= SF_F_FRAME_POINTER;
	if (version >= 2)
		known |= SF_F_FUNC_START_PCREL;
	return (flags & ~known) == 0;
}

static uint8_t fde_size(uint8_t version)
{
	return version == 1 ? SF_FDE_V1_SIZE :
	       version == 2 ? SF_FDE_V2_SIZE : SF_FDE_V3_SIZE;
}

/* The preamble: magic, version, flags, ABI. */
static int check_preamble(const uint8_t *h)
{
	uint16_t magic = sf_le16(h);
	if (magic == (uint16_t)(SF_MAGIC << 8 | SF_MAGIC >> 8))
		return SF_E_ENDIAN;
	if (magic != SF_MAGIC)
		return SF_E_MAGIC;
	if (h[2] < 1 || h[2] > 3)
		return SF_E_VERSION;
	/* This reader is little-endian only: a big-endian ABI in a
	 * little-endian section is a contradiction, not a format to read. */
	if (h[4] == SF_ABI_AARCH64_BE)
		return SF_E_ENDIAN;
	if (h[4] != SF_ABI_AARCH64_LE && h[4] != SF_ABI_AMD64_LE)
		return SF_E_ABI;
	if (!flags_ok(h[2], h[3]))
		return SF_E_FLAGS;
	return SF_OK;
}

/* Sub-sections must lie inside the section. 64-bit sums cannot overflow. */
static int check_layout(const struct sf_table *t, uint32_t size)
{
	uint64_t fde_end = (uint64_t)t->fdes + (uint64_t)t->num_fdes * t->fde_size;
	uint64_t fre_end = (uint64_t)t->fres + t->fre_len;
	return fde_end <= size && fre_end <= size ? SF_OK : SF_E_HDR_BOUNDS;
}

int sf_open(struct sf_table *t, const struct sf_src *src)
{
	uint8_t h[SF_HEADER_SIZE];
	int err;

	if (!t || !src || (!src->base && !src->read && !src->in_place))
		return SF_E_INVAL;
	/* Section addresses vaddr + off must not wrap. */
	if (src->vaddr + src->size < src->vaddr)
		return SF_E_INVAL;
	/* In place, every load is in the range checked here (sf_load). */
	if (sf_kind(src) == SF_KIND_IN_PLACE && !sf_env_range_ok(src->vaddr, src->size))
		return SF_E_FAULT;
	if (src->size < SF_HEADER_SIZE)
		return SF_E_SHORT;
	if ((err = sf_get(src, 0, SF_HEADER_SIZE, h)))
		return err;
	if ((err = check_preamble(h)))
		return err;

	t->src = *src;
	t->version = h[2];
	t->flags = h[3];
	t->abi = h[4];
	t->fixed_fp = (int8_t)h[5];
	t->fixed_ra = (int8_t)h[6];
	t->auxhdr_len = h[7];
	t->fde_size = fde_size(t->version);
	t->num_fdes = sf_le32(h + 8);
	t->num_fres = sf_le32(h + 12);
	t->fre_len = sf_le32(h + 16);

	/* Offsets count from the end of the header and auxiliary header. */
	uint64_t end = SF_HEADER_SIZE + t->auxhdr_len;
	uint64_t fdes = end + sf_le32(h + 20);
	uint64_t fres = end + sf_le32(h + 24);
	if (fdes > src->size || fres > src->size)
		return SF_E_HDR_BOUNDS;
	t->fdes = (uint32_t)fdes;
	t->fres = (uint32_t)fres;
	t->text_start = 0;
	t->text_end = UINT64_MAX;
	t->fde_index = NULL;
	return check_layout(t, src->size);
}

int sf_check_layout(const struct sf_table *t)
{
	/* The FDE array comes first and ends where the FRE sub-section begins
	 * (libsframe refuses the other order too). */
	if ((uint64_t)t->fdes + (uint64_t)t->num_fdes * t->fde_size > t->fres)
		return SF_E_HDR_LAYOUT;
	/* Every FRE takes at least 2 bytes. Checking the counts before walking
	 * bounds the work by the section size: FDEs that share or overlap
	 * FREs cannot make validation quadratic. */
	if (t->num_fres > t->fre_len / 2)
		return SF_E_FRE_COUNT;
	return SF_OK;
}

uint32_t sf_used_size(const struct sf_table *t)
{
	uint64_t fde_end = (uint64_t)t->fdes + (uint64_t)t->num_fdes * t->fde_size;
	uint64_t fre_end = (uint64_t)t->fres + t->fre_len;
	/* sf_open checked both against the section's size. */
	return (uint32_t)(fde_end > fre_end ? fde_end : fre_end);
}
