using System.Runtime.CompilerServices;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The reports' palette as the app's Program.cs declares it at start-up, before any test draws a chart.</summary>
internal static class AppPalette
{
    [ModuleInitializer]
    internal static void Declare() => VariantPalette.Declare(ExperimentList.Colors);
}
