/*
 * ctx_aarch64.S - fiber context switch for AArch64 (AAPCS64).
 *
 * void *asteal__ctx_switch(void **save_sp, void *new_sp, void *xfer)
 *   Saves the callee-saved registers x19-x28, the frame pointer x29, the
 *   link register x30, d8-d15 and FPCR in a 176-byte frame on the current
 *   stack, stores sp in *save_sp, switches to new_sp, restores the same set
 *   and returns through x30 into the other context with xfer as its return
 *   value (x0; x2 keeps it for the trampoline).
 *
 * asteal__ctx_trampoline
 *   Where a fresh fiber's first switch returns to (x30 of its initial
 *   frame): it calls asteal__fiber_main(xfer), which never returns.
 */
#if defined(__aarch64__)
	.text
	.globl	asteal__ctx_switch
	.type	asteal__ctx_switch, %function
	.p2align 4
asteal__ctx_switch:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mrs	x9, fpcr
	str	x9, [sp, #160]
	mov	x9, sp
	str	x9, [x0]
	mov	sp, x1
	ldr	x9, [sp, #160]
	msr	fpcr, x9
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
	mov	x0, x2
	ret
	.size	asteal__ctx_switch, .-asteal__ctx_switch

	.globl	asteal__ctx_trampoline
	.type	asteal__ctx_trampoline, %function
	.p2align 4
asteal__ctx_trampoline:
	mov	x29, #0
	mov	x0, x2
	bl	asteal__fiber_main
	brk	#0
	.size	asteal__ctx_trampoline, .-asteal__ctx_trampoline
#endif
	.section .note.GNU-stack, "", %progbits
