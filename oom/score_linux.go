package oom

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/logger"
)

// tendOOMScore is the oom_score_adj tend gives itself as PID 1:
// OOM_SCORE_ADJ_MIN, so that in a full memory cgroup the kernel kills one
// of the app's processes, never the init whose death takes the whole
// container down (no stop, no hook, the app's code lost). The kernel
// exempts the host's init the same way (oom_unkillable_task:
// is_global_init). OpenSSH's sshd does exactly this for its listener
// (openbsd-compat/port-linux.c, oom_adjust_setup writes -1000 and every
// child gets the saved value back); the kubelet gives a pod's pause
// container -998 (pkg/kubelet/qos/policy.go, PodInfraOOMAdj). -998 would
// not do here: a Guaranteed pod's processes run at -997, and one point is
// worth only limit/1000 of memory, so a 6 MB tend would still rank above
// a 1.5 MB child in a small cgroup. tend's own memory is bounded (the
// health server's connection cap), so an unkillable tend cannot be what
// fills the cgroup.
const tendOOMScore = -1000

// oomScoreFile is where tend's own score is read and written.
const oomScoreFile = "/proc/self/oom_score_adj"

// tendOOMBudget is what tend's own badness is taken to be, on top of its
// resident pages at start, when it must raise its children instead of
// lowering itself: the most a flood of health connections added (14 MB
// VmHWM under 5,000 slowloris connections, from 8.5 MB idle), rounded up.
const tendOOMBudget = 8 << 20

// oomScore is the score tend keeps (own) and the one each process it
// starts gets (child). fd stays open so that a start costs two writes and
// no open.
type oomScore struct {
	fd         int
	own, child int
}

// arrangeScore makes the processes tend starts the OOM killer's choice
// before tend, as PID 1. With CAP_SYS_RESOURCE tend lowers itself to
// tendOOMScore and every child gets tend's original value back: nothing
// changes for the app against other containers. Without it (Docker's
// default capabilities lack SYS_RESOURCE, and so do some sandboxes' roots)
// tend cannot go below the value the runtime set, and doing nothing leaves
// a 6-8 MB tend the largest process beside small children, killed first
// (the whole container then dies: no stop, no hook). So each child gets
// the least raise that makes it outrank tend in a full memory cgroup of
// limit bytes (see childRaise); the kernel lets a process lower its score
// back to the runtime's value without the capability, so an app that
// disagrees can undo it. With no memory limit there is no cgroup OOM to
// lose, and nothing changes. aroundFork installs forChild.
func arrangeScore(log *logger.Logger, limit uint64, aroundFork func(func() (after func()))) {
	fd, orig, err := openOOMScore()
	if err != nil {
		log.With(errField(err)).Infof("oom_score_adj left as it is: %v", err)
		return
	}
	s := &oomScore{fd: fd, own: tendOOMScore, child: orig}
	if orig == tendOOMScore {
		_ = unix.Close(fd) // children inherit the minimum, as they always did
		return
	}
	err = s.set(tendOOMScore)
	switch {
	case err == nil:
		log.Debugf("oom_score_adj: tend %d, the processes it starts %d (as tend had)", tendOOMScore, orig)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		s.own = orig
		s.child = min(orig+childRaise(limit, selfResident()), 1000)
		if s.child == orig {
			_ = unix.Close(fd) // nothing to change for the children
			log.Infof("tend cannot lower its oom_score_adj (it needs CAP_SYS_RESOURCE) and has no memory limit to rank the app against; add the capability (docker run --cap-add SYS_RESOURCE; Kubernetes securityContext.capabilities.add: [SYS_RESOURCE]) to keep tend out of the OOM killer's way")
			return
		}
		log.Infof("tend cannot lower its oom_score_adj (it needs CAP_SYS_RESOURCE): the processes it starts get %d instead of %d, the least that makes each the OOM killer's choice before tend in a full memory cgroup of %s; add the capability (docker run --cap-add SYS_RESOURCE; Kubernetes securityContext.capabilities.add: [SYS_RESOURCE]) to leave their score as it is", s.child, orig, cgroupLimitBytes(limit))
	default:
		_ = unix.Close(fd) // tend keeps its score
		log.With(errField(err)).Infof("oom_score_adj left as it is: %v", err)
		return
	}
	aroundFork(s.forChild)
}

// childRaise is the least raise of oom_score_adj that makes a process
// outrank tend in a memory-cgroup OOM, whatever its own size: the kernel's
// badness is resident pages plus page tables plus oom_score_adj times
// totalpages/1000 (oom_badness in mm/oom_kill.c), and totalpages is the
// cgroup's limit. tend is taken as its resident memory now plus
// tendOOMBudget. 0 without a limit; at most 2000.
func childRaise(limit, resident uint64) int {
	if limit == 0 || limit >= 1<<62 {
		return 0
	}
	unit := limit / 4096 / 1000 * 4096 // bytes per point, floored as the kernel floors pages/1000
	if unit == 0 {
		return 2000
	}
	return int(min((resident+tendOOMBudget)/unit+1, 2000))
}

// selfResident is tend's resident memory in bytes (VmRSS, file pages
// included, as the kernel counts them), or 8 MiB when /proc cannot say.
func selfResident() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 8 << 20
}

// openOOMScore opens tend's score for writing and reads its value.
func openOOMScore() (fd, orig int, err error) {
	fd, err = unix.Open(oomScoreFile, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	b := make([]byte, 16)
	n, err := unix.Pread(fd, b, 0)
	if err == nil {
		orig, err = strconv.Atoi(strings.TrimSpace(string(b[:n])))
	}
	if err != nil {
		_ = unix.Close(fd) // nothing written: nothing to undo
		return -1, 0, err
	}
	return fd, orig, nil
}

func (s *oomScore) set(v int) error {
	_, err := unix.Pwrite(s.fd, []byte(strconv.Itoa(v)), 0)
	return err
}

// forChild runs just before a fork, under the reaper's lock: tend takes
// the child's score for the length of the fork, so that the child
// inherits it (score and the floor it may lower it to without the
// capability, both copied at fork: copy_signal in kernel/fork.c), and the
// returned func puts tend's own back once the child has exec'd. The
// alternative, writing the child's /proc/PID/oom_score_adj after the
// start, would leave the app running with tend's score for the
// microseconds in between (-1000: unkillable), and anything it forked then
// so for good; this way only tend is exposed, with the child's score, for
// the fork itself (about 0.1-1 ms each start). A write that fails leaves
// things as they were, and the next start tries again.
func (s *oomScore) forChild() (after func()) {
	_ = s.set(s.child) // raising needs no capability, and returning to the original is allowed (see arrangeScore)
	return func() {
		_ = s.set(s.own) // as above; on failure tend keeps the child's score until the next start
	}
}
