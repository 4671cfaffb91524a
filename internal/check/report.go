package check

// Report is the result of one audit, ready to render (internal/render's
// CheckText, CheckMarkdown, CheckJSON). Its JSON form is the machine
// contract of `migrate check -o json`.
type Report struct {
	Source   string    `json:"source,omitempty"` // what was audited: connect string or snapshot file
	Target   string    `json:"target_version"`   // Kafka version checked against
	Counts   Summary   `json:"counts"`
	Findings []Finding `json:"findings"`
}

// Summary counts findings per severity.
type Summary struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
}

// NewReport builds a report over findings already returned by Run.
func NewReport(source string, target Target, fs []Finding) *Report {
	m := Counts(fs)
	if fs == nil {
		fs = []Finding{}
	}
	return &Report{Source: source, Target: target.String(), Findings: fs,
		Counts: Summary{Error: m[SeverityError], Warning: m[SeverityWarning], Info: m[SeverityInfo]}}
}
