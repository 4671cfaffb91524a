package zkread

import "flag"

func flagUpdate() *bool { return flag.Bool("update", false, "rewrite golden files") }
