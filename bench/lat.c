// lat: latency helpers for bench/run.sh, compiled at run time with gcc.
//
//   lat recv                       block SIGUSR1, write 'R' to stdout, then
//                                  write 'A' to stdout for every SIGUSR1
//   lat sig N -- unshare ... INIT -- lat recv
//                                  run the command with its stdout on a pipe;
//                                  the init is the command's (unshare's) only
//                                  child; N times: kill(init, SIGUSR1) and
//                                  time until the 'A' arrives
//   lat http N RATE PORT PATH      N GETs of PATH on 127.0.0.1:PORT, one new
//                                  connection each, started at RATE per second
//
// Results are one line: "p50_us=... p99_us=... n=... lost=...".
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

static void report(long long *v, int n, int lost) {
	if (n == 0) {
		printf("p50_us=n/a p99_us=n/a n=0 lost=%d\n", lost);
		return;
	}
	qsort(v, n, sizeof *v, cmp);
	int i99 = (int)((n * 99LL + 99) / 100) - 1; // nearest rank
	printf("p50_us=%.1f p99_us=%.1f n=%d lost=%d\n", v[(n - 1) / 2] / 1e3, v[i99] / 1e3, n, lost);
}

// readbyte waits up to ms for one byte on fd; returns it, or -1.
static int readbyte(int fd, int ms) {
	struct pollfd p = {.fd = fd, .events = POLLIN};
	unsigned char c;
	if (poll(&p, 1, ms) <= 0 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

static int recv_main(void) {
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	alarm(120); // never outlive a broken bench
	if (write(1, "R", 1) != 1)
		return 1;
	for (;;) {
		if (sigwaitinfo(&s, NULL) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (write(1, "A", 1) != 1)
			return 1;
	}
}

static int sig_main(int n, char **cmd) {
	int p[2];
	if (pipe(p) < 0)
		return 1;
	pid_t u = fork();
	if (u == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(p[1]);
	long long *v = calloc(n, sizeof *v);
	int got = 0, lost = 0;
	pid_t init = 0;
	if (readbyte(p[0], 10000) != 'R') {
		fprintf(stderr, "lat: receiver never got ready\n");
		goto out;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", u, u);
	FILE *f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &init) != 1) {
		fprintf(stderr, "lat: no init under pid %d\n", u);
		goto out;
	}
	fclose(f);
	usleep(50000); // let the init finish its own start-up
	struct timespec gap = {0, 500000};
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();
		if (kill(init, SIGUSR1) < 0)
			break;
		if (readbyte(p[0], 1000) != 'A') {
			lost++;
			continue;
		}
		v[got++] = now_ns() - t0;
		nanosleep(&gap, NULL);
	}
out:
	if (init > 0)
		kill(init, SIGTERM);
	for (int i = 0; i < 50 && waitpid(u, NULL, WNOHANG) == 0; i++)
		usleep(100000);
	kill(u, SIGKILL);
	if (init > 0)
		kill(init, SIGKILL);
	waitpid(u, NULL, 0);
	report(v, got, lost);
	return 0;
}

// get does one request on a new connection; returns latency, or -1.
static long long get(int port, const char *path) {
	long long t0 = now_ns();
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct timeval tv = {1, 0};
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	char req[256], buf[1024];
	int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0 && write(s, req, len) == len;
	int total = 0, r;
	char rest[4096];
	while (ok && total < 12 && (r = read(s, buf + total, sizeof buf - 1 - total)) > 0)
		total += r;
	while (ok && read(s, rest, sizeof rest) > 0) // the rest, until the server closes
		;
	close(s);
	buf[total] = 0;
	if (!ok || strncmp(buf, "HTTP/1.1 200", 12) != 0)
		return -1;
	return now_ns() - t0;
}

static int http_main(int n, int rate, int port, const char *path) {
	long long *v = calloc(n, sizeof *v);
	int got = 0, lost = 0;
	for (int i = 0; i < 50; i++) // warm-up, not counted
		get(port, path);
	long long start = now_ns(), step = 1000000000LL / rate;
	for (int i = 0; i < n; i++) {
		long long at = start + i * step;
		struct timespec t = {at / 1000000000LL, at % 1000000000LL};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		long long d = get(port, path);
		if (d < 0)
			lost++;
		else
			v[got++] = d;
	}
	report(v, got, lost);
	return 0;
}

int main(int argc, char **argv) {
	if (argc >= 2 && !strcmp(argv[1], "recv"))
		return recv_main();
	if (argc >= 5 && !strcmp(argv[1], "sig") && !strcmp(argv[3], "--"))
		return sig_main(atoi(argv[2]), argv + 4);
	if (argc == 6 && !strcmp(argv[1], "http"))
		return http_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	fprintf(stderr, "usage: lat recv | lat sig N -- CMD... | lat http N RATE PORT PATH\n");
	return 2;
}
