package catalogue

// accessFindings are reported by `migrate access` about its inputs only
// (check, plan and apply report the access findings of check's list).
var accessFindings = []Finding{
	{
		ID: IDAccessConfigMismatch, Category: CatAccessIn, Severity: SeverityWarning,
		Title: "A properties file given for a live node (--target-config) is not what the node runs: a setting or the roles differ.",
		Why:   "The node decides with what it runs; a file that differs describes a restart to come, or another node.",
		Fix:   "Give the file the node was started with, or restart the node with the file.",
	},
}
