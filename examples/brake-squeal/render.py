#!/usr/bin/env python3
"""Pictures of the brake example's series, rendered by VTK without a screen (run under
xvfb-run by the example program): the squeal mode (the first frame of
squeal-mode.pvd, its real part) and the last frame of the transient's end
(transient-end.pvd), each warped by its displacement scaled to a visible size and
coloured by the displacement's magnitude.

usage: render.py OUTDIR     writes OUTDIR/squeal-mode.png and OUTDIR/transient-frame.png
"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def frames(pvd):
    root = ET.parse(pvd).getroot()
    return [(float(d.get("timestep")), d.get("file"))
            for d in root.find("Collection").findall("DataSet")]


def render(vtu, png, title, shown_m, bar_title):
    rd = vtk.vtkXMLUnstructuredGridReader()
    rd.SetFileName(vtu)
    rd.Update()
    grid = rd.GetOutput()
    pd = grid.GetPointData()
    u = vtk_to_numpy(pd.GetArray("displacement"))
    mag = np.linalg.norm(u, axis=1)
    umax = float(mag.max()) if mag.size and mag.max() > 0 else 1.0
    pd.SetActiveVectors("displacement")
    warp = vtk.vtkWarpVector()
    warp.SetInputData(grid)
    warp.SetScaleFactor(shown_m / umax)  # the largest displacement drawn as shown_m
    surf = vtk.vtkDataSetSurfaceFilter()
    surf.SetInputConnection(warp.GetOutputPort())
    calc = vtk.vtkArrayCalculator()
    calc.SetInputConnection(surf.GetOutputPort())
    calc.AddVectorArrayName("displacement")
    calc.SetFunction("mag(displacement)")
    calc.SetResultArrayName("u_magnitude")
    mapper = vtk.vtkDataSetMapper()
    mapper.SetInputConnection(calc.GetOutputPort())
    mapper.SetScalarModeToUsePointFieldData()
    mapper.SelectColorArray("u_magnitude")
    mapper.SetScalarRange(0.0, umax)
    lut = vtk.vtkLookupTable()
    lut.SetHueRange(0.667, 0.0)
    lut.Build()
    mapper.SetLookupTable(lut)
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    edges = vtk.vtkActor()  # the mesh's outline, thin and grey
    emap = vtk.vtkDataSetMapper()
    emap.SetInputConnection(surf.GetOutputPort())
    emap.ScalarVisibilityOff()
    edges.SetMapper(emap)
    edges.GetProperty().SetRepresentationToWireframe()
    edges.GetProperty().SetColor(0.25, 0.25, 0.25)
    edges.GetProperty().SetOpacity(0.15)
    bar = vtk.vtkScalarBarActor()
    bar.SetLookupTable(lut)
    bar.SetTitle(bar_title)
    bar.SetWidth(0.07)
    bar.SetHeight(0.6)
    bar.SetPosition(0.86, 0.18)
    bar.SetNumberOfLabels(4)
    bar.SetLabelFormat("%.2e")
    bar.UnconstrainedFontSizeOn()
    for p, size in ((bar.GetTitleTextProperty(), 18), (bar.GetLabelTextProperty(), 16)):
        p.SetColor(0, 0, 0)
        p.SetFontSize(size)
        p.ItalicOff()
        p.BoldOff()
        p.ShadowOff()
    text = vtk.vtkTextActor()
    text.SetInput(title)
    text.GetTextProperty().SetFontSize(22)
    text.GetTextProperty().SetColor(0, 0, 0)
    text.SetPosition(20, 860)
    ren = vtk.vtkRenderer()
    ren.SetBackground(1, 1, 1)
    for a in (actor, edges, bar, text):
        ren.AddActor(a)
    # from outside the pins' sector (the +x side), above the disc
    cam = ren.GetActiveCamera()
    cam.SetFocalPoint(0.08, 0.0, -0.02)
    cam.SetPosition(0.95, -0.75, 0.55)
    cam.SetViewUp(0.0, 0.0, 1.0)
    cam.SetViewAngle(30)
    ren.ResetCameraClippingRange()
    win = vtk.vtkRenderWindow()
    win.SetOffScreenRendering(1)
    win.AddRenderer(ren)
    win.SetSize(1200, 900)
    win.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(win)
    grab.Update()
    out = vtk.vtkPNGWriter()
    out.SetFileName(png)
    out.SetInputConnection(grab.GetOutputPort())
    out.Write()
    return grid


def main():
    out = sys.argv[1]
    t, f = frames(os.path.join(out, "squeal-mode.pvd"))[0]
    rd = vtk.vtkXMLUnstructuredGridReader()
    rd.SetFileName(os.path.join(out, f))
    rd.Update()
    fd = rd.GetOutput().GetFieldData()
    val = lambda name: float(vtk_to_numpy(fd.GetArray(name))[0])
    render(os.path.join(out, f), os.path.join(out, "squeal-mode.png"),
           "Most unstable mode at mu = %.2f: %.1f Hz, growth rate %.2f 1/s (real part)"
           % (val("mu"), val("frequency_hz"), val("growth_rate")), 0.006,
           "|Re phi| (max |phi| = 1)")
    t, f = frames(os.path.join(out, "transient-end.pvd"))[-1]
    render(os.path.join(out, f), os.path.join(out, "transient-frame.png"),
           "Transient at mu = 0.45, t = %.5f s (displacement magnified)" % t, 0.006, "|u| (m)")


if __name__ == "__main__":
    main()
