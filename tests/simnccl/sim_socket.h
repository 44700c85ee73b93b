/* sim_socket.h - the few socket chores of simnccl: loopback listeners,
 * connections, and whole-buffer transfers bounded by a deadline.
 *
 * Every descriptor made here is non-blocking and close-on-exec; waits use
 * poll, so a dead peer or a missing rank ends in an error, not a hang.
 * Functions return 0 (or a descriptor) on success, -1 with errno set.
 */
#ifndef SIMNCCL_SIM_SOCKET_H
#define SIMNCCL_SIM_SOCKET_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: one clock for every process of the
 * machine, so a sender's timestamp means the same to the receiver. */
int64_t sim_now_ns(void);

/* now + seconds; seconds <= 0 means no deadline (INT64_MAX). */
int64_t sim_deadline_after(double seconds);

int sim_socket_nonblock(int fd);

/* A TCP listener on 127.0.0.1 with a kernel-chosen port. */
int sim_socket_listen(uint16_t *port);

/* A connection to 127.0.0.1:port (TCP_NODELAY). */
int sim_socket_connect(uint16_t port, int64_t deadline_ns);

/* The next connection on listen_fd; errno ETIMEDOUT at the deadline. */
int sim_socket_accept(int listen_fd, int64_t deadline_ns);

/* All len bytes, or -1: ETIMEDOUT at the deadline, ECONNRESET when the
 * peer closed first. */
int sim_socket_send_all(int fd, const void *buf, size_t len,
                        int64_t deadline_ns);
int sim_socket_recv_all(int fd, void *buf, size_t len, int64_t deadline_ns);

#endif
