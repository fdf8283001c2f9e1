/*
 * /lib/libdeep.so: the position-independent shared object that /bin/dlwork
 * loads with the user-space loader (userland/lib/dl.c). Built with the SDK's
 * code generation (no frame pointers, SFrame on) plus -fPIC -shared, and no
 * libc: everything it calls it defines.
 *
 * Its frames sit between the program's: dlwork's main -> dlwork_phase ->
 * deep_run -> deep_mid -> (deep_leaf, or dlwork's own callback), so an
 * unwind from a sample in either leaf must walk through the object's frames
 * with the .sframe section the loader registered.
 *
 * On purpose it needs each relocation type the loader handles: the
 * exported functions call each other through the PLT (JUMP_SLOT), read an
 * exported variable through the GOT (GLOB_DAT), and keep a table of
 * function pointers (RELATIVE, _64).
 */
typedef unsigned long u64;

u64 deep_calls; /* exported data: reached through the GOT */

#define FRAME __attribute__((noipa))

FRAME u64 deep_leaf(u64 x)
{
	/* A loop worth sampling, with nothing the optimiser can fold. */
	for (int i = 0; i < 4096; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* Each caller does some work after its call: no tail calls, so every
 * function of the chain keeps its frame. */
FRAME static u64 deep_twist(u64 x)
{
	return deep_leaf(x ^ 0x5555) + 1;
}

/* RELATIVE (the static function) and _64 (the exported one) relocations. */
static u64 (*const steps[])(u64) = { deep_leaf, deep_twist };

FRAME u64 deep_mid(u64 x, u64 (*callback)(u64))
{
	deep_calls++;
	x = steps[x & 1](x);
	return (callback ? callback(x) : x) + 1;
}

/* rounds calls of deep_mid, with the program's callback (may be NULL). */
FRAME u64 deep_run(u64 rounds, u64 (*callback)(u64))
{
	u64 x = rounds;
	for (u64 r = 0; r < rounds; r++)
		x += deep_mid(x + r, callback);
	return x;
}
