#Requires -Version 5.1
#Requires -PSEdition Desktop
#Requires -RunAsAdministrator
<#
.SYNOPSIS
Installs scheduled-events-bridge as a Windows service, or updates an installed one.

.DESCRIPTION
Run from the unpacked zip, in an elevated Windows PowerShell 5.1 (not PowerShell 7: the Event Log source it registers
must point at the .NET Framework's message file, which stays, not at PowerShell 7's, which goes with it):

    .\install.ps1

It copies the program to -InstallDir with a private copy of the Java it finds (runtime\), so that a Java update never
stops the service; keeps its settings and state in -DataDir (%ProgramData%\scheduled-events-bridge: bridge.properties,
jvm.options, logs\, the state and the spool), private to SYSTEM, Administrators and the service; installs the service
"scheduled-events-bridge" (Apache Commons Daemon procrun) under its own virtual account
NT SERVICE\scheduled-events-bridge, restarts it when it fails, registers the Event Log source, opens the firewall for
the ports the settings configure (and only those), and starts it.

What the folders hold is decided by the agent's jar (io.github.scheduledeventsbridge.windows.install.InstallPlanner)
from what Windows reports here: a junction or symbolic link in the data folder refuses the install; anything in it that
SYSTEM, Administrators or the service did not make (a standard user may create the folder before the first install)
is set aside, renamed and not used, one line each.

Running it again (a new version, a Java update, or after editing bridge.properties or jvm.options) updates the service
in place: your bridge.properties and jvm.options are never overwritten, and the state carries on, so no transition is
repeated or lost. uninstall.ps1 removes the service and keeps the settings and the state.

Java 17 or newer must be installed; the newest one found is copied. The one command that installs it:

    winget install Microsoft.OpenJDK.17

.PARAMETER JavaHome
The Java to copy as the service's runtime (the directory with bin\server\jvm.dll). Default: the newest Java 17 or
later of JAVA_HOME, the java.exe on the PATH, and the JDKs under Program Files (Microsoft, Eclipse Adoptium, Azul
Zulu, Oracle, Amazon Corretto, BellSoft, Semeru).

.PARAMETER InstallDir
Where the program goes. Default: %ProgramFiles%\scheduled-events-bridge. Refused under a folder that anyone but SYSTEM,
Administrators and TrustedInstaller may rename, delete or re-permission.

.PARAMETER DataDir
Settings, logs and state. Default: %ProgramData%\scheduled-events-bridge. Refused as -InstallDir is.

.PARAMETER TrustExistingFiles
Keep what is in -DataDir although someone other than SYSTEM, Administrators or the service owns it (it is set aside
otherwise). Only after reading it: a planted jvm.options or bridge.properties runs code as the service.

.PARAMETER NoStart
Install or update, but do not start the service.

.EXAMPLE
.\install.ps1 -JavaHome 'C:\Program Files\Microsoft\jdk-17.0.13.11-hotspot'
#>
[CmdletBinding()]
param(
    [string] $JavaHome,
    [string] $InstallDir = (Join-Path $env:ProgramFiles 'scheduled-events-bridge'),
    [string] $DataDir = (Join-Path $env:ProgramData 'scheduled-events-bridge'),
    [switch] $TrustExistingFiles,
    [switch] $NoStart
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'
# The planner reads and writes UTF-8 (paths and settings may hold any character).
$OutputEncoding = New-Object System.Text.UTF8Encoding $false
[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false

$ServiceName = 'scheduled-events-bridge'
$Account = "NT SERVICE\$ServiceName"
$Jar = "$ServiceName.jar"
$Exe = "$ServiceName.exe"
$Planner = 'io.github.scheduledeventsbridge.windows.install.InstallPlanner'
$ProcrunJavaKey = "HKLM:\SOFTWARE\Apache Software Foundation\Procrun 2.0\$ServiceName\Parameters\Java"
# Well-known SIDs: the same on every Windows, whatever its language.
$SystemSid = '*S-1-5-18'
$AdministratorsSid = '*S-1-5-32-544'
$UsersSid = '*S-1-5-32-545'
$InstallJavaHint = 'Install Java 17 or newer with: winget install Microsoft.OpenJDK.17 (then run this script again ' +
    'in a new PowerShell window), or name one with -JavaHome.'

function Invoke-Native {
    # Runs a program and stops on a non-zero exit code, naming it; -Quiet drops its output.
    param([Parameter(Mandatory)][string] $Program, [string[]] $Arguments = @(), [switch] $Quiet)
    $output = & $Program @Arguments
    if ($LASTEXITCODE -ne 0) {
        $output | Write-Host
        throw "$Program $($Arguments -join ' ') failed with exit code $LASTEXITCODE"
    }
    if (-not $Quiet) { $output | Write-Host }
}

function Get-JavaMajorVersion {
    # Enough to run the planner: the feature version from the release file (JAVA_VERSION="17.0.13").
    param([Parameter(Mandatory)][string] $JavaDir)
    $release = Join-Path $JavaDir 'release'
    if (-not (Test-Path -LiteralPath $release)) { return 0 }
    $line = Get-Content -LiteralPath $release | Where-Object { $_ -match '^JAVA_VERSION="([0-9]+)' } | Select-Object -First 1
    if ($null -eq $line) { return 0 }
    [void]($line -match '^JAVA_VERSION="([0-9]+)')
    return [int]$Matches[1]
}

function Get-JavaCandidates {
    # The Javas the planner chooses from (it reads their release files; Program Files it lists itself).
    $candidates = New-Object System.Collections.Generic.List[string]
    if ($JavaHome) { $candidates.Add($JavaHome) }
    if ($env:JAVA_HOME) { $candidates.Add($env:JAVA_HOME) }
    $onPath = Get-Command java.exe -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) { $candidates.Add((Split-Path -Parent (Split-Path -Parent $onPath.Source))) }
    foreach ($vendor in @('Microsoft', 'Eclipse Adoptium', 'Zulu', 'Java', 'Amazon Corretto', 'BellSoft', 'Semeru')) {
        Get-ChildItem -LiteralPath (Join-Path $env:ProgramFiles $vendor) -Directory -ErrorAction SilentlyContinue |
            ForEach-Object { $candidates.Add($_.FullName) }
    }
    $candidates.Add((Join-Path $InstallDir 'runtime'))
    return $candidates
}

function Invoke-Planner {
    # Hands the facts to the jar on standard input, returns its plan; stops on a refusal, with the planner's words.
    param([Parameter(Mandatory)][string[]] $Arguments, [string[]] $Facts = @())
    $plan = @($Facts | & $PlannerJava -cp (Join-Path $Source $Jar) $Planner @Arguments)
    if ($LASTEXITCODE -ne 0) { throw "The install planner failed ($($Arguments[0])), exit code $LASTEXITCODE" }
    $refusals = @($plan | Where-Object { $_.StartsWith("refuse`t") } | ForEach-Object { $_.Substring(7) })
    if ($refusals.Count -gt 0) { throw ($refusals -join [Environment]::NewLine) }
    return $plan
}

function Test-ReparsePoint {
    param([Parameter(Mandatory)] $Item)
    if ($Item.Attributes -band [IO.FileAttributes]::ReparsePoint) { return '1' }
    return '0'
}

function Get-Sddl {
    # Owner and DACL as Windows reports them; empty when they cannot be read (the planner then trusts nothing).
    param([Parameter(Mandatory)][string] $Path)
    try { return (Get-Acl -LiteralPath $Path).Sddl } catch { return '' }
}

function Get-FolderFacts {
    # A folder's parents, the folder, and (with -Entries) all in it, listed without following a junction or symbolic
    # link (a recursive listing in Windows PowerShell 5.1 follows them).
    param([Parameter(Mandatory)][string] $Path, [switch] $Entries)
    $parent = Split-Path -Parent $Path
    while ($parent) {
        $item = Get-Item -LiteralPath $parent -Force
        "ancestor`t$parent`t$(Test-ReparsePoint $item)`t$(Get-Sddl $parent)"
        $parent = Split-Path -Parent $parent
    }
    $folder = Get-Item -LiteralPath $Path -Force -ErrorAction SilentlyContinue
    if (-not $folder) { return }
    "folder`t$Path`t$(Test-ReparsePoint $folder)`t$(Get-Sddl $Path)"
    if (-not $Entries -or (Test-ReparsePoint $folder) -eq '1') { return }
    $pending = New-Object System.Collections.Generic.Queue[string]
    $pending.Enqueue($Path)
    while ($pending.Count -gt 0) {
        $directory = $pending.Dequeue()
        try {
            $children = @(Get-ChildItem -LiteralPath $directory -Force -ErrorAction Stop)
        } catch {
            if ($directory -eq $Path) { "unreadable`t." } else { "unreadable`t$($directory.Substring($Path.Length + 1))" }
            continue
        }
        foreach ($child in $children) {
            $relative = $child.FullName.Substring($Path.Length + 1)
            $kind = if ($child.PSIsContainer) { 'd' } else { 'f' }
            $reparse = Test-ReparsePoint $child
            "entry`t$relative`t$kind`t$reparse`t$(Get-Sddl $child.FullName)"
            if ($child.PSIsContainer -and $reparse -eq '0') { $pending.Enqueue($child.FullName) }
        }
    }
}

function Invoke-FolderPlan {
    # Applies the data folder's plan, step by step, in its order.
    param([Parameter(Mandatory)][string[]] $Plan)
    foreach ($step in $Plan) {
        $field = $step.Split("`t")
        $path = if ($field.Count -gt 1 -and $field[1] -ne '.') { Join-Path $DataDir $field[1] } else { $DataDir }
        switch ($field[0]) {
            'create-folder' {
                # Created with its ACL: nobody else can put anything in it first.
                $security = New-Object System.Security.AccessControl.DirectorySecurity
                $security.SetSecurityDescriptorSddlForm($field[1])
                [void][IO.Directory]::CreateDirectory($DataDir, $security)
                Write-Host "Created $DataDir"
            }
            'take-ownership' { Invoke-Native takeown.exe @('/F', $path, '/A') -Quiet }
            'secure' {
                Invoke-Native icacls.exe (@($path, '/inheritance:r', '/grant:r') + $field[2..($field.Count - 1)] + '/Q') -Quiet
            }
            'remove-ace' { Invoke-Native icacls.exe @($path, $field[2], $field[3], '/Q') -Quiet }
            'inherit' { Invoke-Native icacls.exe @($path, '/reset', '/Q') -Quiet }
            'set-aside' {
                Rename-Item -LiteralPath $path -NewName $field[2]
                Write-Warning ("Set aside $path as $($field[2]), not used: $($field[3]). Read it, then delete it, " +
                    'or run install.ps1 -TrustExistingFiles to keep it')
            }
            'create-directory' { New-Item -ItemType Directory -Path $path | Out-Null }
            'copy-default' {
                Copy-Item -LiteralPath (Join-Path $InstallDir $field[1]) -Destination $path
                Write-Host "Created $path"
            }
            default { throw "Unknown step in the install plan: $step" }
        }
    }
}

$InstallDir = $InstallDir.TrimEnd('\')
$DataDir = $DataDir.TrimEnd('\')
$Source = $PSScriptRoot
foreach ($file in @($Jar, $Exe, 'bridge.properties', 'jvm.options')) {
    if (-not (Test-Path -LiteralPath (Join-Path $Source $file))) {
        throw "$file is missing beside install.ps1: run it from the unpacked scheduled-events-bridge zip"
    }
}

# A Java to run the planner on (any 17 or later); the planner then chooses the service's by version.
$candidates = Get-JavaCandidates
$PlannerJava = $candidates | ForEach-Object { Join-Path $_ 'bin\java.exe' } |
    Where-Object { (Test-Path -LiteralPath $_) -and (Get-JavaMajorVersion -JavaDir (Split-Path -Parent (Split-Path -Parent $_))) -ge 17 } |
    Select-Object -First 1
if (-not $PlannerJava) { throw "No Java 17 or newer was found (JAVA_HOME, PATH, Program Files). $InstallJavaHint" }
$javaArguments = if ($JavaHome) { @('java', '--requested', $JavaHome) } else {
    @('java') + ($candidates | ForEach-Object { '--candidate', $_ }) }
try {
    $chosen = @(Invoke-Planner -Arguments $javaArguments)[0].Split("`t")
} catch {
    throw "$($_.Exception.Message). $InstallJavaHint"
}
$JavaHome = $chosen[1]
Write-Host "Java $($chosen[2]) at $JavaHome"

# Both folders' parents, before anything is made or changed.
foreach ($dir in @($InstallDir, $DataDir)) {
    New-Item -ItemType Directory -Force -Path (Split-Path -Parent $dir) | Out-Null
}
[void](Invoke-Planner -Arguments @('folder', '--program', '--path', $InstallDir) -Facts (Get-FolderFacts -Path $InstallDir))
$folderArguments = @('folder', '--path', $DataDir, '--service', $ServiceName)
if ($TrustExistingFiles) { $folderArguments += '--trust-existing' }
$folderPlan = Invoke-Planner -Arguments $folderArguments -Facts (Get-FolderFacts -Path $DataDir -Entries)

# An update: the service stops first (a graceful stop: undelivered messages stay in the spool for the next start).
$existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if ($existing -and $existing.Status -ne 'Stopped') {
    Write-Host "Stopping $ServiceName"
    Stop-Service -Name $ServiceName
    $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
}

# The program, and its own copy of the Java: a Java update that removes the folder it came from leaves the service
# running (on the copy) until install.ps1 is run again, which copies the newest.
New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
if ((Resolve-Path -LiteralPath $Source).ProviderPath.TrimEnd('\') -ne (Resolve-Path -LiteralPath $InstallDir).ProviderPath.TrimEnd('\')) {
    Copy-Item -Path (Join-Path $Source '*') -Destination $InstallDir -Recurse -Force
}
$runtime = Join-Path $InstallDir 'runtime'
if ($JavaHome.TrimEnd('\') -ne $runtime) {
    & robocopy.exe $JavaHome $runtime /MIR /XD jmods include /XF src.zip /R:2 /W:1 /NFL /NDL /NJH /NJS /NP | Out-Null
    if ($LASTEXITCODE -ge 8) { throw "Copying $JavaHome to $runtime failed (robocopy exit code $LASTEXITCODE)" }
}
# Read-only for all but SYSTEM and Administrators: the service runs it and must not be able to change it.
$serviceSid = '*' + ([string](Invoke-Planner -Arguments @('service-sid', '--service', $ServiceName))).Trim()
Invoke-Native icacls.exe @($InstallDir, '/inheritance:r', '/grant:r', "${SystemSid}:(OI)(CI)F",
    "${AdministratorsSid}:(OI)(CI)F", "${UsersSid}:(OI)(CI)RX", "${serviceSid}:(OI)(CI)RX", '/Q') -Quiet
Invoke-Native icacls.exe @((Join-Path $InstallDir '*'), '/reset', '/T', '/C', '/Q') -Quiet

# Settings and state: private to SYSTEM, Administrators and the service (by its SID: it need not exist yet); what
# others put there is set aside; a copy of bridge.properties and jvm.options is made once, later runs keep yours.
Invoke-FolderPlan -Plan $folderPlan

# The service: procrun's options come from the jar, straight into procrun's arguments (no file in between).
$current = Get-ItemProperty -LiteralPath $ProcrunJavaKey -ErrorAction SilentlyContinue
$currentFacts = @()
if ($current -and ($current.PSObject.Properties.Name -contains 'Options9')) {
    $currentFacts = @($current.Options9 | ForEach-Object { "current`tOptions9`t$_" })
}
$servicePlan = Invoke-Planner -Arguments @('service', '--install-dir', $InstallDir, '--data-dir', $DataDir,
    '--jvm-options', (Join-Path $DataDir 'jvm.options')) -Facts $currentFacts
if ($servicePlan -contains "clear-registry-value`tOptions9") {
    Remove-ItemProperty -LiteralPath $ProcrunJavaKey -Name 'Options9'
}
$serviceOptions = @($servicePlan | Where-Object { $_.StartsWith("option`t") } | ForEach-Object { $_.Substring(7) })
$verb = if ($existing) { 'US' } else { 'IS' }
Invoke-Native (Join-Path $InstallDir $Exe) (@("//$verb//$ServiceName") + $serviceOptions)
Write-Host "Service $ServiceName $(if ($existing) { 'updated' } else { 'installed' })"

# An unrestricted service SID first (the ACLs above and the firewall rules below name it), then its own virtual
# account (no password, no profile to manage).
Invoke-Native sc.exe @('sidtype', $ServiceName, 'unrestricted')
Invoke-Native sc.exe @('config', $ServiceName, 'obj=', $Account)
# Restarted 5 s after a failure (a crash, a hard kill, an exit code other than 0), then 10 s, then every minute; the
# count starts over after a day without failure.
Invoke-Native sc.exe @('failure', $ServiceName, 'reset=', '86400', 'actions=', 'restart/5000/restart/10000/restart/60000')
Invoke-Native sc.exe @('failureflag', $ServiceName, '1')

# The Event Log source, firewall rules and warnings, from bridge.properties and machine-wide BRIDGE_* variables.
$machine = [Environment]::GetEnvironmentVariables('Machine')
$variableFacts = @($machine.Keys | Where-Object { $_ -like 'BRIDGE_*' } |
    ForEach-Object { "machine-variable`t$_`t$(([string]$machine[$_]) -replace '[\r\n\t]', ' ')" })
$settingsPlan = Invoke-Planner -Arguments @('settings', '--properties', (Join-Path $DataDir 'bridge.properties')) -Facts $variableFacts
$eventSource = $ServiceName
Get-NetFirewallRule -Group $ServiceName -ErrorAction SilentlyContinue | Remove-NetFirewallRule
foreach ($step in $settingsPlan) {
    $field = $step.Split("`t")
    switch ($field[0]) {
        'event-source' {
            # Windows PowerShell's .NET Framework registers its own EventLogMessages.dll: each entry shows its text.
            $eventSource = $field[1]
            if (-not [System.Diagnostics.EventLog]::SourceExists($eventSource)) {
                [System.Diagnostics.EventLog]::CreateEventSource($eventSource, 'Application')
                Write-Host "Registered the Event Log source '$eventSource' in the Application log"
            }
        }
        'firewall' {
            # Inbound only to the ports this configuration listens on, for this service alone.
            New-NetFirewallRule -Name "$ServiceName-$($field[1] -replace ' ', '-')" -DisplayName "$ServiceName $($field[1])" `
                -Group $ServiceName -Direction Inbound -Action Allow -Protocol TCP -LocalPort $field[2] `
                -Program (Join-Path $InstallDir $Exe) -Service $ServiceName | Out-Null
            Write-Host "Firewall: TCP $($field[2]) open for the $($field[1])"
        }
        'warn' { Write-Warning $field[1] }
        default { throw "Unknown step in the settings plan: $step" }
    }
}

if ($NoStart) {
    Write-Host "Not started (-NoStart): Start-Service $ServiceName"
    return
}
function Show-ServiceLog {
    # procrun's stdout and stderr hold what happened before the agent's own log opened; after that,
    # scheduled-events-bridge.log has it.
    $log = @(Get-ChildItem -Path (Join-Path $DataDir 'logs') -Filter '*-std*.log' -ErrorAction SilentlyContinue |
        Sort-Object -Property LastWriteTime -Descending | Select-Object -First 2) +
        @(Get-Item -LiteralPath (Join-Path $DataDir 'logs\scheduled-events-bridge.log') -ErrorAction SilentlyContinue)
    foreach ($file in $log) { Get-Content -LiteralPath $file.FullName -Tail 15 -Encoding UTF8 }
}
try {
    Start-Service -Name $ServiceName
} catch {
    Show-ServiceLog
    throw "$ServiceName did not start: see the lines above, and $(Join-Path $DataDir 'logs')"
}
# A configuration the agent refuses stops it within seconds, with one line in its log saying why.
Write-Host 'Started; checking that it keeps running (20 s)'
$deadline = (Get-Date).AddSeconds(20)
while ((Get-Date) -lt $deadline -and (Get-Service -Name $ServiceName).Status -eq 'Running') {
    Start-Sleep -Seconds 1
}
if ((Get-Service -Name $ServiceName).Status -ne 'Running') {
    Show-ServiceLog
    throw "$ServiceName did not keep running: see the lines above, and $(Join-Path $DataDir 'logs')"
}
Write-Host "$ServiceName is running. Log: $(Join-Path $DataDir 'logs'); Event Log: Get-EventLog -LogName Application -Source '$eventSource' -Newest 10"
