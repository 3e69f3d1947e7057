package dev.tally.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ./tally} command line. */
// INHERIT: every subcommand answers --version too
@Command(name = "tally", mixinStandardHelpOptions = true, versionProvider = TallyVersion.class,
        scope = CommandLine.ScopeType.INHERIT,
        description = "Tally: an event-sourced voting and reactions backend on Kafka.",
        subcommands = {UpCommand.class, TailCommand.class, ReactionsCommand.class, ReconcileCommand.class,
                QuarantineCommand.class, VoidCommand.class, BenchCommand.class, DrillCommand.class,
                DeadLettersCommand.class, AclsCommand.class, TopicsCommand.class, RankingsCommand.class,
                WebhooksCommand.class})
public final class Tally implements Runnable {

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new Tally());
        for (TallyNode.Service service : TallyNode.Service.values()) {
            cli.addSubcommand(service.cliName, new ServiceCommand(service));
        }
        // a bad setting is the operator's to fix: one line naming the variable, exit 2, no stack trace
        cli.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof dev.tally.common.Env.ConfigException) {
                System.err.println("tally: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
