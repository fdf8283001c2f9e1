#ifndef KERN_MM_MEMMAP_H
#define KERN_MM_MEMMAP_H

#include "stitch/boot_info.h"

/* Prints the number of regions and the MiB of each type. */
void memmap_print(const struct boot_info *bi);

#endif
