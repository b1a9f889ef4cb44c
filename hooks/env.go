package hooks

import "strconv"

// Env is the environment of a hook or an exec probe: tend's own (base),
// plus TEND_HOOK naming what runs, TEND_APP_PID while there is an app, and
// TEND_EXIT_CODE for post-stop. It builds a fresh slice every time, so
// that one run's variables never land in another's backing array.
func Env(base []string, name string, appPid int, exitCode *int) []string {
	env := make([]string, len(base), len(base)+3)
	copy(env, base)
	env = append(env, "TEND_HOOK="+name)
	if appPid > 0 {
		env = append(env, "TEND_APP_PID="+strconv.Itoa(appPid))
	}
	if exitCode != nil {
		env = append(env, "TEND_EXIT_CODE="+strconv.Itoa(*exitCode))
	}
	return env
}
