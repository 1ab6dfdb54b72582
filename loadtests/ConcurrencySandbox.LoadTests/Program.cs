using ConcurrencySandbox.LoadTests;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Hosting;

if (args.Length > 0 && args[0] == ApiProcess.ServeVerb)
{
    return await ServeApi.RunAsync(args[1..]);
}

if (args.Length > 0 && args[0] == ConcurrencySandbox.LoadTests.Experiments.StreamingExperiment.Name)
{
    return await ConcurrencySandbox.LoadTests.Experiments.StreamingExperiment.MainAsync(args[1..], Console.Out, Console.Error, CancellationToken.None);
}

// However the runner ends, it takes its API children with it.
AppDomain.CurrentDomain.ProcessExit += (_, _) => ApiProcess.KillAll();
return await CommandLine.InvokeAsync(args, Console.Out, Console.Error, (request, cancellationToken) => Runner.RunAsync(request, Console.Out, cancellationToken));
