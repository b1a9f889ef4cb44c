// Package notify speaks the sd_notify(3) protocol both ways.
//
// Outward (Sender): when podman --sdnotify=container, a Quadlet Notify= or a
// systemd unit runs tend with NOTIFY_SOCKET set, tend tells that manager
// READY=1, STATUS=..., STOPPING=1 and WATCHDOG=1. Neither tini, dumb-init
// nor catatonit does (podman #6160, #27771; moby #20968).
//
// Inward (Receiver): tend gives the app a NOTIFY_SOCKET of its own and
// turns what the app sends into Messages on a bounded channel, which the
// event loop folds into a State (readiness, status, watchdog).
//
// What the receiver accepts follows systemd's manager_dispatch_notify_fd
// (src/core/manager.c, systemd 252-256) and service_notify_message
// (src/core/service.c):
//   - one datagram is at most MaxDatagram (NOTIFY_BUFFER_MAX, PIPE_BUF)
//     bytes; a longer one (MSG_TRUNC) is dropped whole;
//   - a datagram without SCM_CREDENTIALS, or whose pid is 0 (the kernel
//     writes 0 for a sender outside tend's pid namespace), is dropped;
//   - a datagram with descriptors attached (SCM_RIGHTS) is dropped and its
//     descriptors closed, as systemd does where no fd store is configured;
//   - a NUL before the last byte drops the datagram; one trailing NUL is
//     allowed;
//   - the sender's pid must pass the caller's check (NotifyAccess=all: any
//     process of the container but tend itself).
//
// tend adds two bounds systemd does not have, because the sender is a
// stranger inside the container: a token bucket on accepted datagrams, and
// a bounded channel that drops (and counts) rather than block. Neither
// the socket nor a flood can hold the event loop.
//
// The socket's permissions (Listen): a fresh directory, mode 0711, owned by
// tend, holding one socket of mode 0666. Anyone who can reach the path may
// send, as anyone may send to systemd's /run/systemd/notify (srwxrwxrwx):
// the access decision is the credential check, not the file mode. This is
// what lets an app run with --user, or one that drops its privileges
// itself (gosu, su-exec in an entrypoint), reach the socket without tend
// knowing its uid; and the directory's 0711 keeps other users from listing
// it or putting anything beside the socket.
package notify
