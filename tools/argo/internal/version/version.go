// Package version reports the Argo Workflows module this binary was built from, as the Go
// toolchain recorded it (go.mod's pinned version), not a string kept by hand.
package version

import "runtime/debug"

const argoModule = "github.com/argoproj/argo-workflows/v4"

// Argo returns the version of Argo Workflows compiled into this binary, e.g. "v4.0.5".
func Argo() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range info.Deps {
		if m.Path == argoModule {
			if m.Replace != nil {
				return m.Version + " (replaced by " + m.Replace.Path + " " + m.Replace.Version + ")"
			}
			return m.Version
		}
	}
	return "unknown"
}
