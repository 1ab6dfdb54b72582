using System.CommandLine;
using System.Globalization;
using ConcurrencySandbox.LoadTests.Agents;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>agent --coordinator tcp://HOST:PORT [--index I] [--log-dir DIR]</c>: a load agent. Its index comes from --index,
/// else from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), else the coordinator gives it the first free one (a compose
/// replica). It runs what the coordinator assigns until told to finish.
/// </summary>
internal static class AgentCommand
{
    public const string IndexVariable = "JOB_COMPLETION_INDEX";

    public static Command Create(TextWriter output, TextWriter error)
    {
        var coordinator = new Option<string>("--coordinator") { Description = "The coordinator: tcp://host:port; loopback unless this agent runs in a container network.", Required = true };
        var index = new Option<int?>("--index") { Description = $"This agent's share (0-based; default: {IndexVariable}, else the first free one)." };
        var logFolder = new Option<string>("--log-dir") { Description = "Where the agent keeps its own HdrHistogram log per variant.", DefaultValueFactory = _ => "agent-logs" };
        var command = new Command("agent", "Run as a load agent: register with a coordinator, wait at its start barrier, send its share of the load and stream each interval's histogram back.")
        {
            coordinator, index, logFolder,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var url = AgentAddress.CoordinatorUrl(parse.GetValue(coordinator)!, AgentAddress.InContainerNetwork);
                var session = new AgentSession(url, IndexOf(parse.GetValue(index)), parse.GetValue(logFolder)!, output);
                return await session.RunAsync(cancellationToken);
            }
            catch (UsageException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException or FormatException)
            {
                await error.WriteLineAsync($"agent failed: {e.Message}");
                return CommandLine.ExitThresholdFailed;
            }
        });
        return command;
    }

    /// <summary>--index, else the Indexed Job's completion index, else -1 (the coordinator picks).</summary>
    public static int IndexOf(int? given)
    {
        if (given is { } index)
        {
            return index >= 0 ? index : throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"--index must be 0 or more, got {index}"));
        }
        var fromJob = Environment.GetEnvironmentVariable(IndexVariable);
        if (fromJob is null)
        {
            return -1;
        }
        return int.TryParse(fromJob, NumberStyles.None, CultureInfo.InvariantCulture, out var jobIndex)
            ? jobIndex
            : throw new UsageException($"{IndexVariable} must be a completion index like 0, got '{fromJob}'");
    }
}
