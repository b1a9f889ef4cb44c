// Package kubeletvol writes a directory as the kubelet projects a
// ConfigMap or Secret volume into it, for tests of what watches one. The
// sequence is the kubelet's AtomicWriter.Write (kubernetes
// pkg/volume/util/atomic_writer.go, steps 5 to 11): a new
// "..2006_01_02_15_04_05.NNNN" directory holding the files, a link per
// key "KEY -> ..data/KEY" where none exists yet, a "..data_tmp" link to
// the new directory renamed over "..data" (the one atomic step), then the
// keys no longer in the payload and the old directory removed.
package kubeletvol

import (
	"os"
	"path/filepath"
	"time"
)

// Write projects files (key -> content) into dir, as one kubelet update.
func Write(dir string, files map[string]string) error {
	dataDir := filepath.Join(dir, "..data")
	old, _ := os.Readlink(dataDir) // none on the first write
	// (5) ioutil.TempDir(targetDir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	ts, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return err
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return err
	}
	// (6) the payload, in the new directory.
	for k, v := range files {
		if err := os.WriteFile(filepath.Join(ts, k), []byte(v), 0o644); err != nil {
			return err
		}
	}
	// (7) the user-visible links, for new keys only.
	for k := range files {
		if _, err := os.Readlink(filepath.Join(dir, k)); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", k), filepath.Join(dir, k)); err != nil {
				return err
			}
		}
	}
	// (8) ..data_tmp -> the new directory; (9) renamed over ..data.
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dataDir); err != nil {
		return err
	}
	// (10) keys that left the payload; (11) the old directory.
	if old != "" {
		entries, err := os.ReadDir(filepath.Join(dir, old))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if _, keep := files[e.Name()]; !keep {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					return err
				}
			}
		}
		return os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}
