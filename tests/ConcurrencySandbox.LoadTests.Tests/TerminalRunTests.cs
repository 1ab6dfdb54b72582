using System.Diagnostics;
using System.Text;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The runner as a user runs it: in a terminal, where it draws its status line. A pseudo-terminal from util-linux's
/// <c>script</c> stands in for the user's: output that is not redirected, a width set with <c>stty</c>, and Ctrl+C typed
/// as the byte the terminal turns into SIGINT. Piped output (every other test, CI) draws no status line, so only these
/// runs take the status line's path through a whole experiment.
/// </summary>
[Trait("Category", "Slow")]
public sealed class TerminalRunTests : IDisposable
{
    // Bounds that turn a hang into a failure: the smoke run takes about 25 s on two shared cores.
    private static readonly TimeSpan RunBound = TimeSpan.FromMinutes(3);
    private const string EraseLine = "\r\u001b[2K";

    private readonly string _out = Path.Combine(Path.GetTempPath(), "loadtests-pty-" + Guid.NewGuid().ToString("N"));

    [FactWithScript]
    public async Task ASmokeRunInAPseudoTerminalDrawsItsStatusLineAndFinishes()
    {
        using var terminal = Start("sleep", "--profile", "smoke", "--milliseconds", "20", "--out", _out);
        var screen = new StringBuilder();

        var exited = await ReadUntilExitAsync(terminal, screen, _ => false);

        Assert.True(exited, $"the run did not finish within {RunBound.TotalMinutes} minutes in a terminal; its screen ended:\n{Tail(screen)}");
        Assert.Equal(CommandLine.ExitOk, terminal.ExitCode);
        var text = screen.ToString();
        Assert.Contains(EraseLine + "[3/3] sleep/async  step ", text);
        Assert.Contains("finished: ", text);
        Assert.True(File.Exists(Path.Combine(_out, "report.html")), "no report.html");
    }

    [FactWithScript]
    public async Task CtrlCTypedInAPseudoTerminalStopsTheRunAndWritesThePartialReport()
    {
        using var terminal = Start("sleep", "--profile", "smoke", "--milliseconds", "20", "--out", _out);
        var screen = new StringBuilder();

        // Typed while the status line is being redrawn: once it shows the second step of the first variant.
        var exited = await ReadUntilExitAsync(terminal, screen, text => text.Contains("[1/3] sleep/sync  step 2", StringComparison.Ordinal));

        Assert.True(exited, $"the run did not stop within {RunBound.TotalMinutes} minutes of Ctrl+C; its screen ended:\n{Tail(screen)}");
        Assert.Equal(CommandLine.ExitCancelled, terminal.ExitCode);
        Assert.Contains("PARTIAL REPORT", screen.ToString());
        Assert.True(File.Exists(Path.Combine(_out, "summary.json")), "no partial summary.json");
    }

    /// <summary>The runner in a new pseudo-terminal of 160 x 40, its screen on the process's output.</summary>
    private static Process Start(params string[] args)
    {
        var runner = string.Join(' ', new[] { "dotnet", typeof(Runner).Assembly.Location }.Concat(args).Select(Quote));
        var process = CommandRun.Start(FactWithScriptAttribute.Script, ["--quiet", "--return", "--command", $"stty cols 160 rows 40; exec {runner}", "/dev/null"], redirectInput: true);
        return process;
    }

    /// <summary>
    /// Reads the screen until the process exits (true) or the bound passes (false, the process tree killed); the first
    /// time <paramref name="typeCtrlC"/> accepts the screen so far, Ctrl+C is typed.
    /// </summary>
    private static async Task<bool> ReadUntilExitAsync(Process terminal, StringBuilder screen, Func<string, bool> typeCtrlC)
    {
        using var bound = new CancellationTokenSource(RunBound);
        var buffer = new char[4096];
        var typed = false;
        try
        {
            while (await terminal.StandardOutput.ReadAsync(buffer, bound.Token) is var read and > 0)
            {
                screen.Append(buffer, 0, read);
                if (!typed && typeCtrlC(screen.ToString()))
                {
                    typed = true;
                    await terminal.StandardInput.WriteAsync('\u0003');
                    await terminal.StandardInput.FlushAsync(bound.Token);
                }
            }
            await terminal.WaitForExitAsync(bound.Token);
            return true;
        }
        catch (OperationCanceledException)
        {
            terminal.Kill(entireProcessTree: true);
            return false;
        }
    }

    private static string Quote(string arg) => "'" + arg.Replace("'", "'\\''", StringComparison.Ordinal) + "'";

    private static string Tail(StringBuilder screen) => screen.ToString()[Math.Max(0, screen.Length - 2000)..];

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    /// <summary>A fact that needs util-linux's <c>script</c> (a pseudo-terminal), and says so when skipped.</summary>
    private sealed class FactWithScriptAttribute : FactAttribute
    {
        public const string Script = "/usr/bin/script";

        public FactWithScriptAttribute()
        {
            if (!File.Exists(Script))
            {
                Skip = $"{Script} (util-linux's bsdutils) is not installed: no pseudo-terminal to run the runner in";
            }
        }
    }
}
