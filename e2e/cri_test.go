package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// criClient is a small CRI v1 client: crictl is in neither Debian nor the
// module proxy. The idea (and the list/inspect/remove-all set) comes from
// the recipe's kcri (shared/kube/build/kubewrap/cmd/kcri).
type criClient struct {
	conn *grpc.ClientConn
	rt   runtimeapi.RuntimeServiceClient
}

func dialCRI(sock string) (*criClient, error) {
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &criClient{conn: conn, rt: runtimeapi.NewRuntimeServiceClient(conn)}, nil
}

func (c *criClient) close() error { return c.conn.Close() }

func (c *criClient) version(ctx context.Context) error {
	_, err := c.rt.Version(ctx, &runtimeapi.VersionRequest{})
	return err
}

// containers lists every container of a pod (by its full static-pod
// name), every attempt, oldest first.
func (c *criClient) containers(ctx context.Context, pod string) ([]*runtimeapi.Container, error) {
	r, err := c.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.name": pod},
	}})
	if err != nil {
		return nil, err
	}
	sort.Slice(r.Containers, func(i, j int) bool { return r.Containers[i].CreatedAt < r.Containers[j].CreatedAt })
	return r.Containers, nil
}

// sandboxPID is the host pid of a pod's sandbox process (tend, here),
// from the runtime's verbose sandbox status.
func (c *criClient) sandboxPID(ctx context.Context, pod string) (int, error) {
	r, err := c.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: &runtimeapi.PodSandboxFilter{
		State:         &runtimeapi.PodSandboxStateValue{State: runtimeapi.PodSandboxState_SANDBOX_READY},
		LabelSelector: map[string]string{"io.kubernetes.pod.name": pod},
	}})
	if err != nil {
		return 0, err
	}
	if len(r.Items) != 1 {
		return 0, fmt.Errorf("%d ready sandboxes for pod %s, want 1", len(r.Items), pod)
	}
	s, err := c.rt.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: r.Items[0].Id, Verbose: true})
	if err != nil {
		return 0, err
	}
	var info struct{ Pid int }
	if err := json.Unmarshal([]byte(s.Info["info"]), &info); err != nil || info.Pid == 0 {
		return 0, fmt.Errorf("no pid in the sandbox's verbose status (%v): %.300s", err, s.Info["info"])
	}
	return info.Pid, nil
}

// removeAllSandboxes stops and removes every pod sandbox with its
// containers, like `crictl rmp -af`; the kubelet is stopped by then.
func (c *criClient) removeAllSandboxes(ctx context.Context) error {
	r, err := c.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	var errs []string
	for _, p := range r.Items {
		if _, err := c.rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Sprintf("stop %s: %v", p.Metadata.Name, err))
		}
		if _, err := c.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Sprintf("remove %s: %v", p.Metadata.Name, err))
		} else {
			logf("removed sandbox of %s", p.Metadata.Name)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// table is `crictl ps -a` for failure messages: every container, its
// attempt, state and exit code.
func (c *criClient) table(ctx context.Context) string {
	r, err := c.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
	if err != nil {
		return err.Error() + "\n"
	}
	sort.Slice(r.Containers, func(i, j int) bool { return r.Containers[i].CreatedAt < r.Containers[j].CreatedAt })
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTAINER\tAGE\tSTATE\tPOD\tNAME\tATTEMPT\tEXIT\tREASON")
	for _, ct := range r.Containers {
		exit, reason := "-", "-"
		if s, err := c.rt.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: ct.Id}); err == nil && s.Status != nil {
			if s.Status.FinishedAt != 0 {
				exit = fmt.Sprint(s.Status.ExitCode)
			}
			if s.Status.Reason != "" {
				reason = s.Status.Reason
			}
		}
		fmt.Fprintf(tw, "%.13s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", ct.Id, time.Since(time.Unix(0, ct.CreatedAt)).Round(time.Second),
			strings.TrimPrefix(ct.State.String(), "CONTAINER_"), ct.Labels["io.kubernetes.pod.name"], ct.Metadata.Name, ct.Metadata.Attempt, exit, reason)
	}
	_ = tw.Flush() // writes to a strings.Builder cannot fail
	return b.String()
}
