using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Hosting;

// However the runner ends, it takes its API children with it.
AppDomain.CurrentDomain.ProcessExit += (_, _) => ApiProcess.KillAll();
return await CommandLine.InvokeAsync(args, Console.Out, Console.Error, (request, cancellationToken) => Runner.RunAsync(request, Console.Out, cancellationToken));
