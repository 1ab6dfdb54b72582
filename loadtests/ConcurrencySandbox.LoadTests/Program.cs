using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.Platform.Hosting;

// However the runner ends, it takes its API children with it.
AppDomain.CurrentDomain.ProcessExit += (_, _) => ApiProcess.KillAll();
// The reports sit below the experiments, so the colours the experiments declare are handed down once, here.
VariantPalette.Declare(ExperimentList.Colors);
// On a terminal a status line is redrawn in place; redirected (CI, a pipe, a file), plain lines.
Func<int>? terminalWidth = Console.IsOutputRedirected ? null : () => Console.WindowWidth;
return await CommandLine.InvokeAsync(args, Console.Out, Console.Error, (request, cancellationToken) =>
{
    // A load run's sockets complete on the thread that polled them, as wrk's do (docs/notebook/performance.md, item 5); its API
    // and streaming-client children start with the environment the runner was given.
    InlineSocketCompletions.EnableInThisProcess();
    return Runner.RunAsync(request, Console.Out, cancellationToken, terminalWidth);
}, terminalWidth);
