// lat: latency helpers for bench/run.sh, compiled at run time with gcc.
//
//   lat recv                       block SIGUSR1, write 'R' to stdout, then
//                                  write 'A' to stdout for every SIGUSR1
//   lat sig N -- unshare ... INIT -- lat recv
//                                  run the command with its stdout on a pipe;
//                                  the init is the command's (unshare's) only
//                                  child; N times: kill(init, SIGUSR1) and
//                                  time until the 'A' arrives
//   lat http N RATE PORT PATH [GO DONE]
//                                  GETs of PATH on 127.0.0.1:PORT, one new
//                                  connection each, opened at RATE per second
//                                  whatever the earlier ones are doing (open
//                                  loop); a latency counts from the request's
//                                  due time, so a stall shows in every request
//                                  it holds up. With GO and DONE: after those
//                                  N (reported as idle_*), create the file GO
//                                  and go on until DONE is non-empty; DONE
//                                  holds fakeapp's "storm ... spawn=D
//                                  reaped=D" line, which also gives the
//                                  reaping window
//   lat godur D                    print Go duration D in nanoseconds (-1: none)
//   lat storm N CPU [GO]           the app of a storm, run under the init as
//                                  its PID 1: pin itself to CPU (-1: no
//                                  pinning), wait for the file GO if given,
//                                  fork a spawner that forks N children that
//                                  exit at once, waits until all N are
//                                  zombies (not reaping them), then exits:
//                                  PID 1 gets N zombies in one hand-over.
//                                  Then wait until PID 1 has no child but
//                                  this one; prints
//                                  "storm n=N spawn=D reaped=D cpu_ns=C
//                                  threads=T" where C is PID 1's own CPU time
//                                  (all threads, /proc/1/task/*/schedstat)
//                                  from the hand-over to zero zombies
//   lat faults N -- CMD...         run CMD N times; for each, the page faults
//                                  (minflt+majflt, /proc/PID/stat fields 10
//                                  and 12) of CMD's own process at exit,
//                                  read before it is reaped (children's
//                                  faults are not in these fields)
//
// Results are one line: "p50_us=... p99_us=... max_us=... n=... lost=...",
// http adds "over50ms=... cut=..." (cut: refused as tend exits with the app),
// "lag_p99_us=..." (how late lat itself opened the connections)
// and, with DONE, the reaping window's "reap_p99_us=... reap_max_us=...";
// and for faults "p50=... min=... max=... n=...".
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
	printf("p50_us=%.1f p99_us=%.1f max_us=%.1f n=%d lost=%d\n", v[(n - 1) / 2] / 1e3, v[i99] / 1e3, v[n - 1] / 1e3, n, lost);
}

// task_cpu_ns sums the first field of /proc/PID/task/*/schedstat: the time
// every thread of PID has run, in ns. *threads gets the number of threads.
// It is the init's own CPU, whichever CPU it ran on and whatever else the
// machine ran meanwhile; -1 when PID is gone.
static long long task_cpu_ns(int pid, int *threads) {
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	long long sum = 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p2[300];
		snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", pid, e->d_name);
		FILE *f = fopen(p2, "r");
		long long v;
		if (f && fscanf(f, "%lld", &v) == 1)
			sum += v, n++;
		if (f)
			fclose(f);
	}
	closedir(d);
	if (threads)
		*threads = n;
	return sum;
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

// children_of1 counts PID 1's children, zombies included: the pids in
// /proc/1/task/*/children (a Go init forks from any thread).
static int children_of1(void) {
	DIR *d = opendir("/proc/1/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[300];
		snprintf(p, sizeof p, "/proc/1/task/%s/children", e->d_name);
		FILE *f = fopen(p, "r");
		int pid;
		while (f && fscanf(f, "%d", &pid) == 1)
			n++;
		if (f)
			fclose(f);
	}
	closedir(d);
	return n;
}

static void pin(int cpu) {
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		perror("lat: sched_setaffinity");
}

static int storm_main(int n, int cpu, const char *go) {
	pin(cpu); // inherited by the spawner and the orphans: the forking stays off the init's CPU
	alarm(300);
	for (int i = 0; go && i < 60000; i++) { // 60 s at most
		struct stat st;
		if (stat(go, &st) == 0)
			break;
		usleep(1000);
	}
	// ready: the spawner tells lat that all N children are zombies; hold:
	// lat lets the spawner exit, which hands them over to PID 1 at once.
	int ready[2], hold[2];
	if (pipe(ready) < 0 || pipe(hold) < 0)
		return 1;
	long long t0 = now_ns();
	pid_t sp = fork();
	if (sp == 0) {
		close(ready[0]);
		close(hold[1]);
		pid_t *kids = calloc(n, sizeof *kids);
		for (int i = 0; i < n; i++) {
			// vfork: no page tables to copy, and the child only exits. The
			// storm measures the init's reaping, not how fast lat forks.
			pid_t c = vfork();
			if (c == 0)
				_exit(0);
			if (c < 0) {
				perror("lat storm: fork");
				_exit(1);
			}
			kids[i] = c;
		}
		for (int i = 0; i < n; i++) { // each one a zombie, not reaped (WNOWAIT)
			siginfo_t si;
			while (waitid(P_PID, kids[i], &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
				;
		}
		char b = 'Z';
		if (write(ready[1], &b, 1) != 1)
			_exit(1);
		while (read(hold[0], &b, 1) < 0 && errno == EINTR) // until lat closes it
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (readbyte(ready[0], 300000) != 'Z') {
		fprintf(stderr, "lat storm: the spawner failed\n");
		return 1;
	}
	// The hand-over: the spawner's exit gives PID 1 all N zombies at once.
	// PID 1's CPU is read first, so none of its reaping is missed.
	int threads = 0;
	long long c0 = task_cpu_ns(1, NULL), t1 = now_ns();
	close(hold[1]);
	int st = 0;
	waitpid(sp, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "lat storm: the spawner failed\n");
		return 1;
	}
	long long deadline = t1 + 120000000000LL;
	int left = -1;
	while (now_ns() < deadline && (left = children_of1()) > 1)
		usleep(200);
	long long t2 = now_ns(), c1 = task_cpu_ns(1, &threads);
	if (left > 1) {
		printf("storm n=%d timeout left=%d\n", n, left - 1);
		return 1;
	}
	printf("storm n=%d spawn=%.3fms reaped=%.3fms cpu_ns=%lld threads=%d\n", n, (t1 - t0) / 1e6, (t2 - t1) / 1e6,
	       c0 >= 0 && c1 >= 0 ? c1 - c0 : -1, threads);
	fflush(stdout);
	return 0;
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
	long long c0 = task_cpu_ns(init, NULL); // the init's own CPU across the signals
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
	long long c1 = init > 0 ? task_cpu_ns(init, NULL) : -1;
	if (got && c0 >= 0 && c1 >= 0)
		printf("cpu_ns_per_sig=%.0f ", (double)(c1 - c0) / got);
out:
	if (init > 0)
		kill(init, SIGTERM);
	int gone = 0; // once unshare is gone, so is the init, and its pid may be reused
	for (int i = 0; i < 50 && !(gone = waitpid(u, NULL, WNOHANG) == u); i++)
		usleep(100000);
	if (!gone) {
		if (init > 0)
			kill(init, SIGKILL);
		kill(u, SIGKILL);
		waitpid(u, NULL, 0);
	}
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

// godur_ns parses the Go duration that follows key in s ("reaped=1.5s",
// "spawn=2m3.1s", "950µs"); -1 when there is none.
static long long godur_ns(const char *s, const char *key) {
	static const struct { const char *u; double ns; } units[] = {
		{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	const char *p = strstr(s, key);
	if (!p)
		return -1;
	p += strlen(key);
	double t = 0;
	int any = 0;
	for (;;) {
		char *e;
		double x = strtod(p, &e);
		if (e == p)
			break;
		size_t best = 0, k = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) // longest unit that matches
			if (!strncmp(e, units[i].u, strlen(units[i].u)) && strlen(units[i].u) > best)
				best = strlen(units[i].u), k = i;
		if (!best)
			break;
		t += x * units[k].ns;
		p = e + best;
		any = 1;
	}
	return any ? (long long)t : -1;
}

static off_t fsize(const char *path) {
	struct stat st;
	return path && stat(path, &st) == 0 ? st.st_size : 0;
}

// conn is one request in flight.
struct conn {
	int fd, sent, len;
	long long due, opened;
	char head[16];
};

static int connect_errno; // the last failure's, for the report

static int connect_nb(int port) {
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	// Reset on close: no TIME_WAIT left on either side, so a long storm at
	// 1000 connections a second cannot use up the local ports.
	struct linger l = {1, 0};
	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	if (s < 0)
		connect_errno = errno;
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
		connect_errno = errno;
		close(s);
		return -1;
	}
	return s;
}

// H is http_main's tally.
static struct http {
	long long *v, *at, *op, start; // op: latency from the moment lat opened the connection
	int got, cap, lost, cut, why[6];
	const char *done;
	int idle;
} H;

// finish ends request c: fail is 0 for an answer, else its cause (why[]).
static void finish(struct conn *c, int fail, long long t) {
	if (fail) {
		// Refused or reset once the storm is over and tend exits with it,
		// within 50 ms of opening: cut, not lost.
		if (t - c->opened < 50000000LL && !H.idle && fsize(H.done) > 0) {
			H.cut++;
		} else {
			H.lost++;
			H.why[fail - 1]++;
		}
	} else {
		if (H.got == H.cap) {
			H.cap *= 2;
			H.v = realloc(H.v, H.cap * sizeof *H.v);
			H.at = realloc(H.at, H.cap * sizeof *H.at);
			H.op = realloc(H.op, H.cap * sizeof *H.op);
		}
		H.op[H.got] = t - c->opened;
		H.at[H.got] = c->due - H.start;
		H.v[H.got++] = t - c->due;
	}
	close(c->fd);
	c->fd = -1;
}

// http_main is an open-loop client: a new connection is opened at each
// request's due time whatever the earlier ones are doing, and a latency runs
// from the due time to the end of the response, so a server stall shows in
// every request it delays. epoll keeps lat's own cost flat however many
// requests a stalled server holds. A request unanswered 2 s after lat opened
// it is lost.
static int http_main(int n, int rate, int port, const char *path, const char *go, const char *done) {
	enum { MAXC = 16384 };
	static struct conn c[MAXC];
	static int freel[MAXC];
	struct epoll_event ev[256];
	int epfd = epoll_create1(0), nfree = MAXC, next = 0, ending = 0;
	for (int k = 0; k < MAXC; k++)
		c[k].fd = -1, freel[k] = MAXC - 1 - k;
	H.cap = n > 16 ? n : 16;
	H.v = calloc(H.cap, sizeof *H.v), H.at = calloc(H.cap, sizeof *H.at), H.op = calloc(H.cap, sizeof *H.op);
	H.done = done;
	int nlag = 0, lagcap = H.cap;
	long long *lag = calloc(lagcap, sizeof *lag); // how late lat itself opened each: the machine, not the server
	struct rlimit rl = {MAXC + 64, MAXC + 64};
	setrlimit(RLIMIT_NOFILE, &rl);
	char req[256];
	int reqlen = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	for (int i = 0; i < 50; i++) // warm-up, not counted
		get(port, path);
	long long step = 1000000000LL / rate, limit, scanned = 0;
	H.start = now_ns(), limit = H.start + 900000000000LL;
	H.idle = done ? n : 0; // the first idle requests come before GO
	for (;;) {
		long long t = now_ns(), due = H.start + next * step;
		if (H.idle && next == H.idle && H.got + H.lost == H.idle && nfree == MAXC) { // all idle ones are in
			qsort(H.v, H.got, sizeof *H.v, cmp);
			if (H.got)
				printf("idle_p50_us=%.1f idle_p99_us=%.1f idle_max_us=%.1f idle_lost=%d ", H.v[(H.got - 1) / 2] / 1e3,
				       H.v[(int)((H.got * 99LL + 99) / 100) - 1] / 1e3, H.v[H.got - 1] / 1e3, H.lost);
			H.got = H.lost = next = nlag = H.idle = 0;
			memset(H.why, 0, sizeof H.why);
			H.start = t = due = now_ns();
			int fd = open(go, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0)
				close(fd);
		}
		// Without DONE, N requests; with it, requests until DONE holds the
		// storm's line.
		if (!ending && (due > limit || (!done && next >= n) || (done && !H.idle && fsize(done) > 0)))
			ending = 1;
		while (!ending && !(H.idle && next == H.idle) && due <= t) {
			int k = nfree ? freel[nfree - 1] : -1, fd = k < 0 ? -1 : connect_nb(port);
			if (fd < 0) {
				H.lost++;
				H.why[k < 0 ? 4 : 0]++;
			} else {
				nfree--;
				c[k] = (struct conn){.fd = fd, .due = due, .opened = now_ns()};
				struct epoll_event e = {.events = EPOLLOUT, .data.u32 = k};
				epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
				if (nlag == lagcap)
					lag = realloc(lag, (lagcap *= 2) * sizeof *lag);
				lag[nlag++] = c[k].opened - due;
			}
			due = H.start + ++next * step;
			if ((!done && next >= n) || (done && !H.idle && fsize(done) > 0))
				ending = 1;
		}
		if (ending && nfree == MAXC)
			break;
		long long wait = ending || (H.idle && next == H.idle) ? 10000000LL : due - t;
		struct timespec ts = {wait / 1000000000LL, wait % 1000000000LL};
		int ne = epoll_pwait2(epfd, ev, 256, wait > 0 ? &ts : &(struct timespec){0, 0}, NULL);
		t = now_ns();
		for (int i = 0; i < ne; i++) {
			struct conn *x = &c[ev[i].data.u32];
			int fail = 0, fin = 0; // fail: why[fail - 1]
			if (!x->sent) {
				int err = 0;
				socklen_t el = sizeof err;
				getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err || write(x->fd, req, reqlen) != reqlen)
					fail = 1;
				x->sent = 1;
				struct epoll_event e = {.events = EPOLLIN, .data.u32 = ev[i].data.u32};
				epoll_ctl(epfd, EPOLL_CTL_MOD, x->fd, &e);
			} else {
				char buf[4096];
				ssize_t r = read(x->fd, buf, sizeof buf);
				if (r > 0 && x->len < 12) {
					int m = r < 12 - x->len ? (int)r : 12 - x->len;
					memcpy(x->head + x->len, buf, m);
					x->len += m;
				}
				if (r == 0)
					fin = 1;
				else if (r < 0 && errno != EAGAIN)
					fail = 2;
			}
			if (fin && strncmp(x->head, "HTTP/1.1 200", 12) != 0)
				fail = x->len ? 4 : 6; // 6: closed unanswered, e.g. a request sent too late for the server's timeout
			if (fail || fin) {
				finish(x, fail, t);
				freel[nfree++] = ev[i].data.u32;
			}
		}
		if (t - scanned > 100000000LL) { // every 100 ms: no answer 2 s after opening is lost
			scanned = t;
			for (int k = 0; k < MAXC; k++)
				if (c[k].fd >= 0 && t - c[k].opened > 2000000000LL) {
					finish(&c[k], 3, t);
					freel[nfree++] = k;
				}
		}
	}
	int got = H.got, lost = H.lost, cut = H.cut, *why = H.why;
	long long *v = H.v, *at = H.at;
	int over = 0;
	for (int i = 0; i < got; i++)
		over += v[i] > 50000000LL;
	char line[512] = "";
	FILE *f = done ? fopen(done, "r") : NULL;
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	long long sp = godur_ns(line, "spawn="), rp = godur_ns(line, "reaped=");
	if (sp >= 0 && rp >= 0) { // requests due while the orphans were handed over and reaped
		long long *w = calloc(got + 1, sizeof *w), *wo = calloc(got + 1, sizeof *wo);
		int wn = 0;
		for (int i = 0; i < got; i++)
			if (at[i] >= sp && at[i] <= sp + rp + 10000000LL) // +10 ms: the storm app's poll, with room
				wo[wn] = H.op[i], w[wn++] = v[i];
		qsort(w, wn, sizeof *w, cmp);
		qsort(wo, wn, sizeof *wo, cmp);
		// open_*: from the moment lat opened the connection, so lat's own
		// lateness in opening it is left out (its lateness in reading the
		// answer is not).
		if (wn)
			printf("reap_p99_us=%.1f reap_max_us=%.1f reap_open_p99_us=%.1f reap_open_max_us=%.1f reap_n=%d ",
			       w[(int)((wn * 99LL + 99) / 100) - 1] / 1e3, w[wn - 1] / 1e3, wo[(int)((wn * 99LL + 99) / 100) - 1] / 1e3,
			       wo[wn - 1] / 1e3, wn);
	}
	if (got) {
		long long *o = H.op;
		qsort(o, got, sizeof *o, cmp);
		printf("open_p99_us=%.1f open_max_us=%.1f ", o[(int)((got * 99LL + 99) / 100) - 1] / 1e3, o[got - 1] / 1e3);
	}
	qsort(lag, nlag, sizeof *lag, cmp);
	if (nlag)
		printf("lag_p99_us=%.1f lag_max_us=%.1f ", lag[(int)((nlag * 99LL + 99) / 100) - 1] / 1e3, lag[nlag - 1] / 1e3);
	printf("over50ms=%d cut=%d lost_by=connect:%d,read:%d,timeout:%d,status:%d,full:%d,closed:%d connect_errno=%d ", over, cut, why[0], why[1], why[2], why[3], why[4], why[5], connect_errno);
	report(v, got, lost);
	return 0;
}

static int faults_main(int n, char **cmd) {
	long long *v = calloc(n, sizeof *v);
	int got = 0;
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c == 0) {
			int fd = open("/dev/null", O_RDWR);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (c < 0)
			break;
		siginfo_t si;
		if (waitid(P_PID, c, &si, WEXITED | WNOWAIT) == 0) { // a zombie still has its counters
			char path[64], buf[1024];
			snprintf(path, sizeof path, "/proc/%d/stat", c);
			FILE *f = fopen(path, "r");
			size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
			if (f)
				fclose(f);
			buf[len] = 0;
			char *p = strrchr(buf, ')');
			unsigned long minflt, majflt;
			// after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %lu %*u %lu", &minflt, &majflt) == 2)
				v[got++] = minflt + majflt;
		}
		waitpid(c, NULL, 0);
	}
	if (!got) {
		printf("p50=n/a min=n/a max=n/a n=0\n");
		return 0;
	}
	qsort(v, got, sizeof *v, cmp);
	printf("p50=%lld min=%lld max=%lld n=%d\n", v[(got - 1) / 2], v[0], v[got - 1], got);
	return 0;
}

int main(int argc, char **argv) {
	if (argc >= 2 && !strcmp(argv[1], "recv"))
		return recv_main();
	if (argc >= 5 && !strcmp(argv[1], "sig") && !strcmp(argv[3], "--"))
		return sig_main(atoi(argv[2]), argv + 4);
	if ((argc == 6 || argc == 8) && !strcmp(argv[1], "http"))
		return http_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5], argc == 8 ? argv[6] : NULL, argc == 8 ? argv[7] : NULL);
	if (argc == 3 && !strcmp(argv[1], "godur")) {
		printf("%lld\n", godur_ns(argv[2], ""));
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "storm"))
		return storm_main(atoi(argv[2]), atoi(argv[3]), argc == 5 ? argv[4] : NULL);
	if (argc >= 5 && !strcmp(argv[1], "faults") && !strcmp(argv[3], "--"))
		return faults_main(atoi(argv[2]), argv + 4);
	fprintf(stderr, "usage: lat recv | lat sig N -- CMD... | lat http N RATE PORT PATH [GO DONE] | lat storm N CPU [GO] | lat godur D | lat faults N -- CMD...\n");
	return 2;
}
