// argo-validate runs Argo Workflows' own validation over YAML files, one document at a time:
// what `argo lint --offline --strict` does (cmd/argo/lint), through the same offline API clients
// (pkg/apiclient) and so the same `workflow/validate` code, but counting documents rather than
// files, and refusing any document that is not a Workflow, CronWorkflow or WorkflowTemplate.
//
//	argo-validate FILE|DIR...
//
// Prints one line per invalid document, then `argo validate: N/M documents valid`. Exits 1 when
// a document is invalid, when nothing was found to validate, or on an unreadable file.
package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/argoproj/argo-workflows/v4/pkg/apiclient"
	cronworkflowpkg "github.com/argoproj/argo-workflows/v4/pkg/apiclient/cronworkflow"
	workflowpkg "github.com/argoproj/argo-workflows/v4/pkg/apiclient/workflow"
	workflowtemplatepkg "github.com/argoproj/argo-workflows/v4/pkg/apiclient/workflowtemplate"
	wfv1 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v4/util/logging"
	"github.com/argoproj/argo-workflows/v4/workflow/common"
	"sigs.k8s.io/yaml"

	"flowc.local/argo-tools/internal/version"
)

// A document separator: a line that is `---` (with an optional trailing comment or spaces).
var separator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

type document struct {
	file  string
	index int // 1-based, within the file
	text  string
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: argo-validate FILE|DIR...")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(paths []string) int {
	ctx := logging.WithLogger(context.Background(), logging.NewSlogLogger(logging.Error, logging.Text))

	files, err := yamlFiles(paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "argo-validate:", err)
		return 1
	}
	var docs []document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "argo-validate:", err)
			return 1
		}
		for i, text := range separator.Split(string(data), -1) {
			if strings.TrimSpace(stripComments(text)) == "" {
				continue
			}
			docs = append(docs, document{file: f, index: i + 1, text: text})
		}
	}

	valid := 0
	for _, f := range files {
		// One offline client per file, as `argo lint --offline FILE` makes: template references
		// resolve within the file (flowc's documents are self-contained), and two files may hold
		// templates of the same name.
		fctx, client, err := apiclient.NewClientFromOptsWithContext(ctx, apiclient.Opts{Offline: true, OfflineFiles: []string{f}})
		if err != nil {
			fmt.Printf("INVALID %s: %v\n", f, err)
			continue
		}
		wfClient := client.NewWorkflowServiceClient(fctx)
		cronClient, err := client.NewCronWorkflowServiceClient()
		if err != nil {
			fmt.Fprintln(os.Stderr, "argo-validate:", err)
			return 1
		}
		tmplClient, err := client.NewWorkflowTemplateServiceClient()
		if err != nil {
			fmt.Fprintln(os.Stderr, "argo-validate:", err)
			return 1
		}
		for _, d := range docs {
			if d.file != f {
				continue
			}
			what, err := validate(fctx, d, wfClient, cronClient, tmplClient)
			if err != nil {
				fmt.Printf("INVALID %s (document %d, %s): %v\n", d.file, d.index, what, err)
				continue
			}
			valid++
		}
	}
	fmt.Printf("argo validate: %d/%d documents valid (Argo Workflows %s, workflow/validate)\n", valid, len(docs), version.Argo())
	if len(docs) == 0 {
		fmt.Fprintln(os.Stderr, "argo-validate: no documents found")
		return 1
	}
	if valid != len(docs) {
		return 1
	}
	return 0
}

func validate(ctx context.Context, d document, wfClient workflowpkg.WorkflowServiceClient,
	cronClient cronworkflowpkg.CronWorkflowServiceClient, tmplClient workflowtemplatepkg.WorkflowTemplateServiceClient) (string, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(d.text), &head); err != nil {
		return "unreadable", fmt.Errorf("not YAML: %w", err)
	}
	what := fmt.Sprintf("%s %q", head.Kind, head.Metadata.Name)
	if head.APIVersion != "argoproj.io/v1alpha1" {
		return what, fmt.Errorf("apiVersion %q, expected argoproj.io/v1alpha1", head.APIVersion)
	}
	// Strict parsing, as `argo lint` does by default: an unknown field is an error.
	results := common.ParseObjects(ctx, []byte(d.text), true)
	if len(results) != 1 {
		return what, fmt.Errorf("Argo read %d objects from this document, expected 1", len(results))
	}
	if results[0].Err != nil {
		return what, results[0].Err
	}
	namespace := results[0].Object.GetNamespace()
	var err error
	switch v := results[0].Object.(type) {
	case *wfv1.Workflow:
		_, err = wfClient.LintWorkflow(ctx, &workflowpkg.WorkflowLintRequest{Namespace: namespace, Workflow: v})
	case *wfv1.CronWorkflow:
		_, err = cronClient.LintCronWorkflow(ctx, &cronworkflowpkg.LintCronWorkflowRequest{Namespace: namespace, CronWorkflow: v})
	case *wfv1.WorkflowTemplate:
		_, err = tmplClient.LintWorkflowTemplate(ctx, &workflowtemplatepkg.WorkflowTemplateLintRequest{Namespace: namespace, Template: v})
	default:
		err = fmt.Errorf("kind %q is not a Workflow, CronWorkflow or WorkflowTemplate", head.Kind)
	}
	return what, err
}

// stripComments drops whole-line comments, so that a file's leading comment block is not taken
// for a document of its own.
func stripComments(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// yamlFiles lists the given files, and the *.yaml / *.yml files under the given folders, sorted.
func yamlFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}
