package filetype

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOf names real files by what lstat says of them, and the type bits
// alone (permission bits do not change the word).
func TestOf(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "a FIFO", link: "a symbolic link", file: "a regular file", dir: "a directory", "/dev/null": "a character device",
	} {
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			t.Fatal(err)
		}
		if got := Of(st.Mode); got != want {
			t.Errorf("Of(lstat %s) = %q, want %q", path, got, want)
		}
	}
	for mode, want := range map[uint32]string{
		unix.S_IFSOCK | 0o777: "a socket",
		unix.S_IFBLK | 0o660:  "a block device",
		0o170000:              "mode 0170000",
	} {
		if got := Of(mode); got != want {
			t.Errorf("Of(%#o) = %q, want %q", mode, got, want)
		}
	}
}
