/*
 * Loading the kernel ELF: every PT_LOAD segment goes into one contiguous,
 * page-aligned physical block, at the same distance from each other as in
 * the virtual address space. The kernel learns where from boot_info.
 * The file is untrusted input: every offset and size is checked.
 */
#include "loader.h"
#include <elf.h>

#define PAGE_DOWN(x) ((x) & ~(PAGE_SIZE - 1))
#define PAGE_UP(x)   PAGE_DOWN((x) + PAGE_SIZE - 1)

static EFI_STATUS check_header(const Elf64_Ehdr *eh, UINTN size)
{
	if (size < sizeof(*eh) ||
	    eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3)
		FAIL(EFI_LOAD_ERROR, L"kernel.elf is not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_type != ET_EXEC)
		FAIL(EFI_UNSUPPORTED, L"kernel.elf is not an x86_64 executable");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
	    eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr))
		FAIL(EFI_LOAD_ERROR, L"kernel.elf program headers out of bounds");
	return EFI_SUCCESS;
}

/* The virtual range [lo, hi) covered by the PT_LOAD segments. */
static EFI_STATUS load_range(const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
			     UINTN size, UINT64 *lo, UINT64 *hi)
{
	*lo = ~0ull;
	*hi = 0;
	for (UINTN i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset ||
		    ph[i].p_filesz > ph[i].p_memsz)
			FAIL(EFI_LOAD_ERROR, L"kernel.elf segment %d out of bounds", i);
		if (ph[i].p_vaddr < KERNEL_VIRT_BASE ||
		    ph[i].p_memsz > ~0ull - ph[i].p_vaddr - PAGE_SIZE)
			FAIL(EFI_LOAD_ERROR, L"kernel.elf segment %d not in the kernel half", i);
		if (PAGE_DOWN(ph[i].p_vaddr) < *lo)
			*lo = PAGE_DOWN(ph[i].p_vaddr);
		if (PAGE_UP(ph[i].p_vaddr + ph[i].p_memsz) > *hi)
			*hi = PAGE_UP(ph[i].p_vaddr + ph[i].p_memsz);
	}
	if (*hi == 0)
		FAIL(EFI_LOAD_ERROR, L"kernel.elf has no PT_LOAD segment");
	if (*hi - *lo > 256ull << 20)
		FAIL(EFI_LOAD_ERROR, L"kernel.elf spans more than 256 MiB");
	return EFI_SUCCESS;
}

EFI_STATUS load_kernel(EFI_PHYSICAL_ADDRESS file, UINTN size,
		       struct boot_info *bi, UINT64 *entry)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	const Elf64_Phdr *ph;
	EFI_PHYSICAL_ADDRESS phys;
	EFI_STATUS status;
	UINT64 lo, hi;

	if ((status = check_header(eh, size)) != EFI_SUCCESS)
		return status;
	ph = (const Elf64_Phdr *)(file + eh->e_phoff);
	if ((status = load_range(eh, ph, size, &lo, &hi)) != EFI_SUCCESS)
		return status;
	if (eh->e_entry < lo || eh->e_entry >= hi)
		FAIL(EFI_LOAD_ERROR, L"kernel.elf entry point outside its segments");

	/* Zeroed pages: the bytes past p_filesz (.bss) stay zero. */
	TRY(alloc_stitch_pages((hi - lo) / PAGE_SIZE, &phys),
	    L"no memory for the kernel (%ld KiB)", (hi - lo) >> 10);
	for (UINTN i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			CopyMem((void *)(phys + (ph[i].p_vaddr - lo)),
				(void *)(file + ph[i].p_offset), ph[i].p_filesz);

	bi->kernel_phys = phys;
	bi->kernel_size = hi - lo;
	bi->kernel_virt = lo;
	*entry = eh->e_entry;
	return EFI_SUCCESS;
}
