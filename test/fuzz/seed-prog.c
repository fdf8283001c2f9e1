/*
 * The seed executable for fuzz_elf (test/fuzz/mkseeds builds it several
 * ways): a freestanding static program with text, read-only data, data,
 * bss, a build id and an SFrame section, a few hundred bytes of each, so
 * that the fuzzer starts from every kind of program header the loader
 * reads without wading through a 100 KiB file.
 */
static const char message[] = "seed";
static long counter;
long table[4] = { 1, 2, 3, 4 };

__attribute__((noinline)) static long leaf(long x)
{
	return x * table[x & 3] + message[x & 3];
}

__attribute__((noinline)) static long middle(long x)
{
	long v[8];
	for (int i = 0; i < 8; i++)
		v[i] = leaf(x + i);
	return v[x & 7];
}

void _start(void)
{
	counter = middle(counter);
	for (;;)
		__asm__ volatile("syscall" : : "a"(1), "D"(counter) : "rcx", "r11", "memory");
}
