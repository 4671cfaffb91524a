package apply

// KindLanes is kindLanes, for the external tests.
var KindLanes = kindLanes
