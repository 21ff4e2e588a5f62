/*
 * ctx_x86_64.S - fiber context switch for x86-64 (System V ABI).
 *
 * void *asteal__ctx_switch(void **save_sp, void *new_sp, void *xfer)
 *   Pushes the callee-saved registers (rbp, rbx, r12-r15) and the MXCSR and
 *   x87 control words on the current stack, stores the stack pointer in
 *   *save_sp, loads new_sp, pops the same set and returns into the other
 *   context with xfer as its return value (and still in rdx, which the
 *   trampoline passes on).  Caller-saved registers need no saving: this is
 *   a call.
 *
 * asteal__ctx_trampoline
 *   Where a fresh fiber's first switch returns to (see fiber.c): it ends the
 *   frame-pointer chain and calls asteal__fiber_main(xfer), which never
 *   returns.
 */
#if defined(__x86_64__)
	.text
	.globl	asteal__ctx_switch
	.type	asteal__ctx_switch, @function
	.p2align 4
asteal__ctx_switch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	movq	%rdx, %rax
	ret
	.size	asteal__ctx_switch, .-asteal__ctx_switch

	.globl	asteal__ctx_trampoline
	.type	asteal__ctx_trampoline, @function
	.p2align 4
asteal__ctx_trampoline:
	xorl	%ebp, %ebp
	movq	%rdx, %rdi
	call	asteal__fiber_main
	ud2
	.size	asteal__ctx_trampoline, .-asteal__ctx_trampoline
#endif
	.section .note.GNU-stack, "", @progbits
