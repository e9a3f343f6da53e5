package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// ResourceList is what ListResources read. Incomplete is as in ToolList.
type ResourceList struct {
	// Count is how many resources were read (StreamResources keeps none).
	Count      int
	Resources  []Resource
	Pages      int
	Incomplete error
}

// TemplateList is what ListResourceTemplates read. Incomplete is as in
// ToolList.
type TemplateList struct {
	Templates  []ResourceTemplate
	Pages      int
	Incomplete error
}

// ListResources sends resources/list, following nextCursor to the last
// page, as ListTools does for tools.
func ListResources(ctx context.Context, s *session.Session, opts ListOptions) (ResourceList, error) {
	var kept []Resource
	list, err := StreamResources(ctx, s, opts, func(page []Resource, _ bool) { kept = append(kept, page...) })
	list.Resources = kept
	return list, err
}

// StreamResources is ListResources handing each page's resources to page
// as the page is read (more: the server says another page follows), and
// keeping none: the list's Count says how many there were. The list's
// bounds hold as in ListResources.
func StreamResources(ctx context.Context, s *session.Session, opts ListOptions, page func(rs []Resource, more bool)) (ResourceList, error) {
	var list ResourceList
	var err error
	list.Count, list.Incomplete, err = streamPages(ctx, s, "resources/list", opts, &list.Pages, readResourcesPage, page)
	return list, err
}

// readResourcesPage reads one page of resources/list, as many as keep
// allows, and its nextCursor.
func readResourcesPage(page json.RawMessage, keep *listBudget) ([]Resource, string, error) {
	var got []Resource
	next, err := func() (string, error) {
		var p struct {
			Resources  []json.RawMessage `json:"resources"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("malformed result: %w", err)
		}
		for _, raw := range p.Resources {
			if !keep.take(raw) {
				break
			}
			r, err := ParseResource(raw)
			if err != nil {
				return "", err
			}
			got = append(got, r)
		}
		return p.NextCursor, nil
	}()
	return got, next, err
}

// ListResourceTemplates sends resources/templates/list, following
// nextCursor to the last page.
func ListResourceTemplates(ctx context.Context, s *session.Session, opts ListOptions) (TemplateList, error) {
	var list TemplateList
	err := listPages(ctx, s, "resources/templates/list", opts, &list.Pages, func(page json.RawMessage, keep *listBudget) (string, error) {
		var p struct {
			Templates  []json.RawMessage `json:"resourceTemplates"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("malformed result: %w", err)
		}
		for _, raw := range p.Templates {
			if !keep.take(raw) {
				break
			}
			t, err := ParseResourceTemplate(raw)
			if err != nil {
				return "", err
			}
			list.Templates = append(list.Templates, t)
		}
		return p.NextCursor, nil
	})
	list.Incomplete, err = stoppedEarly(err)
	return list, err
}

// stoppedEarly splits listPages' error into the reason a list was cut
// short (kept with the list) and a real failure.
func stoppedEarly(err error) (incomplete, failed error) {
	var stopped *pagingStopped
	if errors.As(err, &stopped) {
		return stopped.err, nil
	}
	return nil, err
}
