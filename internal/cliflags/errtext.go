package cliflags

import (
	"errors"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// optionFlags are the flags of the plan options a *plan.Error can name (by
// their names in plan.Options' JSON).
var optionFlags = map[string]string{
	"broker_id_map": "--broker-id-map",
	"topics":        "--topics",
	"principals":    "--principals",
	"placement":     "--placement",
}

// sideFlags are the flags that choose each side of a plan.
var sideFlags = map[string]string{"source": "--zookeeper, --zk-data-dir or --snapshot", "target": "--bootstrap-server"}

// inputFlags are the flags that give the inputs a use case's errors blame.
var inputFlags = map[migration.Input]string{
	migration.InputSourceCommandConfig: "--source-command-config",
	migration.InputZKDataDir:           "--zk-data-dir",
	migration.InputZKChroot:            "--zk-chroot",
	migration.InputZKTimeout:           "--zk-timeout",
	migration.InputZKConnect:           "--zookeeper",
	migration.InputZKConnections:       "--zk-connections",
	migration.InputZKInFlight:          "--zk-requests-in-flight",
	migration.InputZKDataLogDir:        "--zk-data-log-dir",
	migration.InputZKTime:              "--zk-time",
	migration.InputZKTLSConfigFile:     "--zk-tls-config-file",
	migration.InputCommandConfig:       "--command-config",
	migration.InputScramCredentials:    "--scram-credentials",
	migration.InputAuditKey:            "--audit-key",
	migration.InputReceiptFile:         "--receipt-file",
	migration.InputSignKey:             "--sign-key",
	migration.InputVerifyKey:           "--verify-key",
}

// kindAdvice says where a file of each kind goes, for a file given to the
// wrong flag (infile.WrongKindError).
var kindAdvice = map[infile.Kind]string{
	infile.Plan:        "give it to 'migrate apply --plan'",
	infile.Snapshot:    "give it to --snapshot (the source) or --target-snapshot",
	infile.Tree:        "a capture of ZooKeeper's znodes, which 'migrate demo' reads itself; make a snapshot file with 'migrate snapshot --zookeeper host:port --out FILE'",
	infile.Checkpoint:  "give it to 'migrate bootstrap --in' or 'migrate bootstrap --show'",
	infile.Receipts:    "give it to --receipt-file",
	infile.Key:         "give it to --audit-key",
	infile.Credentials: "give it to --scram-credentials",
	infile.Store:       "a TLS key or certificate: name it in the client properties (--command-config) or --zk-tls-config-file",
	infile.ZKSnapshot:  "give its directory to --zk-data-dir",
	infile.ZKLog:       "give its directory to --zk-data-dir (or --zk-data-log-dir)",
	infile.AuditDB:     "give it to --audit-db",
}

// ErrorText words err in the command line's terms: the inputs a use case
// blames by the flags that give them, and the plan's options and sides
// (planErrorText).
func ErrorText(err error) string {
	text := planErrorText(err)
	var ie *migration.InputError
	if errors.As(err, &ie) {
		if flag, ok := inputFlags[ie.Input]; ok {
			text = strings.Replace(text, ie.Error(), ie.Text(flag), 1)
		}
	}
	var nk *migration.NoKafkaError
	if errors.As(err, &nk) {
		if flag, ok := inputFlags[nk.Chroot]; ok {
			text = strings.Replace(text, nk.Error(), nk.Text(flag), 1)
		}
	}
	var nt *migration.NoTrailError
	if errors.As(err, &nt) {
		text = strings.Replace(text, nt.Error(), nt.Text("--audit-db"), 1)
	}
	var wk *infile.WrongKindError
	if errors.As(err, &wk) {
		if advice, ok := kindAdvice[wk.Got]; ok {
			text = strings.Replace(text, wk.Error(), wk.Error()+"; "+advice, 1)
		}
	}
	if errors.Is(err, migration.ErrNoTarget) {
		text = strings.Replace(text, migration.ErrNoTarget.Error(), "give the target: --bootstrap-server host:port [--command-config client.properties]", 1)
	}
	return text
}

// planErrorText renders a *plan.Error in err with the flag of the option it
// names ("--broker-id-map has no entry for source broker 3, ..."), and a
// *plan.EndpointError with the flags of its side; other errors as they are.
func planErrorText(err error) string {
	var ee *plan.EndpointError
	if errors.As(err, &ee) {
		if flags, ok := sideFlags[ee.Side]; ok {
			return strings.Replace(err.Error(), ee.Msg, ee.Msg+" ("+flags+")", 1)
		}
	}
	var pe *plan.Error
	if !errors.As(err, &pe) || pe.Option == "" {
		return err.Error()
	}
	flag, ok := optionFlags[pe.Option]
	if !ok {
		flag = "option " + pe.Option
	}
	return strings.Replace(err.Error(), pe.Error(), "plan: "+flag+" "+pe.Msg, 1)
}
