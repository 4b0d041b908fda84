package plots

import (
	"go/build"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figure packages take plain data: neither plots nor its sub-packages
// import anything of the simulator (or of each other's callers), so that a
// figure cannot depend on how a run is computed. Their tests may share the
// test support below plots (htmltest), which is held to the same rule.
// go/build reads the import lines, test files included, as go list would.
func TestImportsNothingOfTheProject(t *testing.T) {
	const module = "github.com/redlocksim/redlocksim/"
	const own = module + "plots/"
	for _, dir := range []string{".", "perfetto", "report", "report/htmltest"} {
		p, err := build.ImportDir(dir, 0)
		require.NoError(t, err, dir)
		imports := append(append(append([]string(nil), p.Imports...), p.TestImports...), p.XTestImports...)
		require.NotEmpty(t, imports, dir)
		for _, imp := range imports {
			assert.False(t, strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, own), "%s imports %s", p.ImportPath, imp)
		}
	}
}
