/*
 * wirepass.h - descriptors passed between asteal-wirefloor's two
 * processes (bench/wirefloor.c) over their control socket, a batch per
 * message (SCM_RIGHTS), so that each process holds only its own ends of
 * the jobs' socket pairs.
 */
#ifndef ASTEAL_WIREPASS_H
#define ASTEAL_WIREPASS_H

/* The most descriptors one message carries. */
#define WIREPASS_BATCH 250

/* Send fds[0..k) (k at most WIREPASS_BATCH) over the control socket ctl
 * in one message: 0, or -1 on failure. */
int wirepass_send(int ctl, const int *fds, int k);

/* Receive one message of descriptors from the control socket ctl into
 * fds (room for `room` of them, opened close-on-exec): their number, or
 * -1 on failure or truncation. */
int wirepass_recv(int ctl, int *fds, int room);

#endif
