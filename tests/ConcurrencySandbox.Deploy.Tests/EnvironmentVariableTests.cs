using ConcurrencySandbox.Deploy.Tests.Support;

namespace ConcurrencySandbox.Deploy.Tests;

public class EnvironmentVariableTests
{
    /// <summary>Every variable the compose services, Kubernetes manifests and the images' ENV give the API or the stub.</summary>
    private static IEnumerable<(string Variable, string Where)> AppVariables()
    {
        var compose = new ComposeFile();
        var fromCompose = compose.Apis.Append(compose.Stub)
            .SelectMany(service => ComposeFile.Environment(service.Value).Keys.Select(variable => (variable, $"{ComposeFile.Path} {service.Key}")));

        var baseDirectory = $"{Manifests.K8s}/base";
        var fromConfigMap = Manifests.Kustomization(baseDirectory).List("configMapGenerator")
            .SelectMany(generator => generator.List("literals").OfType<string>())
            .Select(literal => (literal.Split('=')[0], $"{baseDirectory}/kustomization.yaml"));

        var fromDeployments = new[] { "base/deployment.yaml", "stub/deployment.yaml" }
            .SelectMany(file => Manifests.PodSpec(Manifests.Load(file)).List("containers")
                .SelectMany(container => container.List("env")).Select(env => (env.Text("name")!, $"{Manifests.K8s}/{file}")));

        var dockerfile = Dockerfile.Load();
        var fromDockerfile = new[] { "api", "stub" }
            .SelectMany(target => dockerfile.Environment(dockerfile[target]).Keys.Select(variable => (variable, $"Dockerfile target {target}")));

        return fromCompose.Concat(fromConfigMap).Concat(fromDeployments).Concat(fromDockerfile);
    }

    [Fact]
    public void EveryVariableGivenToTheAppIsOneItReads()
    {
        var variables = AppVariables().ToList();
        Assert.Contains(variables, v => v.Variable.Contains("__", StringComparison.Ordinal));
        Assert.All(variables, v => Assert.True(AppConfiguration.ProblemWith(v.Variable) is null, $"{v.Where}: {AppConfiguration.ProblemWith(v.Variable)}"));
    }

    [Fact]
    public void EveryVariableInTheDeploymentFilesIsDocumented()
    {
        var docs = Repository.Read("docs/notebook/deploy.md");
        var loadRunnerVariables = ComposeFile.Environment(new ComposeFile().LoadRunner.Value).Keys;
        var variables = AppVariables().Select(v => v.Variable).Concat(loadRunnerVariables).Concat(AppConfiguration.RuntimeVariables).Distinct();
        Assert.All(variables, variable => Assert.Contains($"`{variable}`", docs, StringComparison.Ordinal));
    }
}
