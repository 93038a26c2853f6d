#Requires -Version 5.1
<#
.SYNOPSIS
Example prepare command for scheduled-events-bridge: get this VM's application ready for maintenance.

.DESCRIPTION
The agent runs it once per event that affects this VM, when the event is first seen (Scheduled, or Started without
warning), with the transition's CloudEvent (JSON) on standard input and these environment variables:
SEB_TRANSITION, SEB_EVENT_ID, SEB_EVENT_TYPE, SEB_EVENT_STATUS, SEB_NOT_BEFORE (ISO-8601 UTC or empty),
SEB_RESOURCES (comma-separated), SEB_DURATION_SECONDS, SEB_EVENT_SOURCE, SEB_DESCRIPTION, SEB_VM_NAME.
Exit code 0 is success; anything else (or an error) is a failure, reported to every sink as ActionFailed (Event Log
id 1102) and, with bridge.approval.auto.after-prepare=true, the event is then not approved early.

It may run more than once for the same event (the agent stopped while it ran), so it must be idempotent: this one
keeps a marker per EventId.

Copy it to %ProgramData%\scheduled-events-bridge\actions\ (where only Administrators can change it) and set, in
bridge.properties:

    bridge.action.prepare.command=& "$env:ProgramData/scheduled-events-bridge/actions/prepare.ps1" -StopService MyApp
    bridge.action.prepare.event-types=Reboot,Redeploy,Preempt,Terminate

It runs as the service's account, NT SERVICE\scheduled-events-bridge, which may not stop other services until it is
allowed to. Allow it for one service (here MyApp) once, as an administrator:

    $sid = ([Security.Principal.NTAccount]'NT SERVICE\scheduled-events-bridge').Translate([Security.Principal.SecurityIdentifier]).Value
    $sddl = (sc.exe sdshow MyApp | Where-Object { $_ }) -join ''
    sc.exe sdset MyApp ($sddl -replace '^D:', "D:(A;;RPWPLCLO;;;$sid)")

.PARAMETER StopService
A Windows service to stop before the maintenance (recover.ps1 -StartService starts it again).

.PARAMETER CheckpointUrl
An HTTP endpoint of the application that checkpoints or drains it (POSTed the CloudEvent; any 2xx is success).
#>
[CmdletBinding()]
param(
    [string] $StopService,
    [string] $CheckpointUrl
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$cloudEvent = [Console]::In.ReadToEnd()
$eventId = $env:SEB_EVENT_ID
if ($eventId -notmatch '^[A-Za-z0-9-]{1,100}$') { throw "SEB_EVENT_ID '$eventId' is not an EventId" }

# Markers live in the agent's temporary directory, which the service may write.
$markers = Join-Path $env:ProgramData 'scheduled-events-bridge\tmp\prepared'
New-Item -ItemType Directory -Force -Path $markers | Out-Null
$marker = Join-Path $markers "$eventId.done"
if (Test-Path -LiteralPath $marker) {
    Write-Output "Already prepared for $env:SEB_EVENT_TYPE $eventId"
    exit 0
}

Write-Output "Preparing for $env:SEB_EVENT_TYPE $eventId of $env:SEB_RESOURCES, not before $env:SEB_NOT_BEFORE"
if ($CheckpointUrl) {
    Invoke-RestMethod -Method Post -Uri $CheckpointUrl -ContentType 'application/json' -Body $cloudEvent -TimeoutSec 120 |
        Out-Null
    Write-Output "Checkpoint requested from $CheckpointUrl"
}
if ($StopService) {
    $service = Get-Service -Name $StopService
    if ($service.Status -ne 'Stopped') {
        Stop-Service -Name $StopService
        $service.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(120))
    }
    Write-Output "Service $StopService stopped"
}
Set-Content -LiteralPath $marker -Value $cloudEvent -Encoding UTF8
exit 0
