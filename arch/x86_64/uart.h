#ifndef ARCH_X86_64_UART_H
#define ARCH_X86_64_UART_H

void uart_init(void); /* COM1, the console; arch_console_putc() writes it */

#endif
