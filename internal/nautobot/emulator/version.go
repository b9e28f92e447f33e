package emulator

import (
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// apiVersion is a REST API version, "major.minor".
type apiVersion struct{ major, minor int }

func parseVersion(s string) (apiVersion, bool) {
	a, b, ok := strings.Cut(s, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	return apiVersion{ma, mi}, ok && err1 == nil && err2 == nil
}

func (v apiVersion) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

func (v apiVersion) atLeast(major, minor int) bool {
	return v.major > major || v.major == major && v.minor >= minor
}

// allowedVersions are the API versions a Nautobot of version v accepts:
// 2.0 to 2.4, then every minor of its own major.
func allowedVersions(v string) []string {
	sv, _ := parseVersion(v)
	var out []string
	for minor := 0; minor <= 4; minor++ {
		if sv.major > 2 || minor <= sv.minor {
			out = append(out, fmt.Sprintf("2.%d", minor))
		}
	}
	for minor := 0; sv.major > 2 && minor <= sv.minor; minor++ {
		out = append(out, fmt.Sprintf("%d.%d", sv.major, minor))
	}
	return out
}

// negotiate picks the API version the way NautobotAPIVersioning does: from
// the Accept header's version parameter or the api_version query
// parameter, defaulting to the server's own version.
func (h *Handler) negotiate(r *http.Request) (apiVersion, int, string) {
	header, jsonOK := "", r.Header.Get("Accept") == ""
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "*/*", "application/*", "text/html":
			jsonOK = true
			if v, ok := params["version"]; ok && header == "" {
				header = v
			}
		}
	}
	if !jsonOK {
		return apiVersion{}, http.StatusNotAcceptable, "Could not satisfy the request Accept header."
	}
	query := r.URL.Query().Get("api_version")
	supported := strings.Join(h.allowed, ", ")
	switch {
	case header != "" && query != "" && header != query:
		return apiVersion{}, http.StatusBadRequest, `Version mismatch between "Accept" header and query parameter.`
	case header != "" && !slices.Contains(h.allowed, header):
		return apiVersion{}, http.StatusNotAcceptable, fmt.Sprintf(`Invalid version "%s" in "Accept" header. Supported versions are: %s`, header, supported)
	case query != "" && !slices.Contains(h.allowed, query):
		return apiVersion{}, http.StatusNotFound, fmt.Sprintf(`Invalid version "%s" in query parameter. Supported versions are: %s`, query, supported)
	}
	chosen := h.cfg.version
	if header != "" {
		chosen = header
	} else if query != "" {
		chosen = query
	}
	v, _ := parseVersion(chosen)
	return v, 0, ""
}
