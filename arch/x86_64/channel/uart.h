#ifndef ARCH_X86_64_CHANNEL_UART_H
#define ARCH_X86_64_CHANNEL_UART_H

#include <stdint.h>

#define UART_COM1 0x3f8 /* the console: arch_console_putc() writes it */
#define UART_COM2 0x2f8 /* the record channel when there is no ivshmem */

void uart_init(uint16_t port);
void uart_write(uint16_t port, const void *buf, uint64_t n);

#endif
