//! Image metrics for the screenshot tests: PNG decode and encode (`png`), the pixelmatch
//! mismatch count and an 8×8-window SSIM (`image-compare`), crops, and a diff picture to look at.
//!
//! ```
//! use browser_tests::image::{pixelmatch, ssim, Rgba};
//! let a = Rgba::filled(8, 8, [255, 255, 255, 255]);
//! let mut b = a.clone();
//! b.put(3, 3, [0, 0, 0, 255]);
//! let d = pixelmatch(&a, &b, 0.1).unwrap();
//! assert_eq!(d.mismatched, 1);
//! assert!(ssim(&a, &a).unwrap() > 0.999);
//! assert!(ssim(&a, &b).unwrap() < 0.999);
//! ```

use image_compare::prelude::GrayImage;

/// An 8-bit RGBA picture, rows top to bottom.
#[derive(Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub data: Vec<u8>,
}

impl std::fmt::Debug for Rgba {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rgba({}×{})", self.width, self.height)
    }
}

impl Rgba {
    /// A picture of one colour.
    ///
    /// ```
    /// let p = browser_tests::image::Rgba::filled(2, 1, [1, 2, 3, 4]);
    /// assert_eq!(p.data, [1, 2, 3, 4, 1, 2, 3, 4]);
    /// ```
    pub fn filled(width: u32, height: u32, px: [u8; 4]) -> Rgba {
        Rgba {
            width,
            height,
            data: px.repeat((width * height) as usize),
        }
    }

    /// The pixel at (`x`, `y`).
    ///
    /// ```
    /// let p = browser_tests::image::Rgba::filled(2, 2, [9, 9, 9, 255]);
    /// assert_eq!(p.get(1, 1), [9, 9, 9, 255]);
    /// ```
    pub fn get(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.data[i], self.data[i + 1], self.data[i + 2], self.data[i + 3]]
    }

    /// Sets the pixel at (`x`, `y`).
    ///
    /// ```
    /// let mut p = browser_tests::image::Rgba::filled(2, 2, [0; 4]);
    /// p.put(0, 1, [1, 1, 1, 1]);
    /// assert_eq!(p.get(0, 1), [1, 1, 1, 1]);
    /// ```
    pub fn put(&mut self, x: u32, y: u32, px: [u8; 4]) {
        let i = ((y * self.width + x) * 4) as usize;
        self.data[i..i + 4].copy_from_slice(&px);
    }

    /// The part at (`x`, `y`) of size `w`×`h`, cut to the picture.
    ///
    /// ```
    /// let p = browser_tests::image::Rgba::filled(4, 4, [0; 4]);
    /// let c = p.crop(2, 2, 10, 1);
    /// assert_eq!((c.width, c.height), (2, 1));
    /// ```
    pub fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Rgba {
        let x = x.min(self.width);
        let y = y.min(self.height);
        let w = w.min(self.width - x);
        let h = h.min(self.height - y);
        let mut data = Vec::with_capacity((w * h * 4) as usize);
        for row in y..y + h {
            let start = ((row * self.width + x) * 4) as usize;
            data.extend_from_slice(&self.data[start..start + (w * 4) as usize]);
        }
        Rgba {
            width: w,
            height: h,
            data,
        }
    }

    /// The picture as gray levels (BT.601 luma), for SSIM.
    fn gray(&self) -> GrayImage {
        let luma = self
            .data
            .chunks_exact(4)
            .map(|p| {
                let [r, g, b] = blend_white(p);
                (0.299 * r + 0.587 * g + 0.114 * b).round().clamp(0.0, 255.0) as u8
            })
            .collect();
        GrayImage::from_raw(self.width, self.height, luma).expect("buffer of width × height")
    }
}

/// Decodes a PNG of any colour type and bit depth to 8-bit RGBA.
///
/// ```
/// use browser_tests::image::{decode_png, encode_png, Rgba};
/// let p = Rgba::filled(3, 2, [10, 20, 30, 255]);
/// assert_eq!(decode_png(&encode_png(&p)).unwrap(), p);
/// assert!(decode_png(b"not a png").is_err());
/// ```
pub fn decode_png(bytes: &[u8]) -> Result<Rgba, String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| format!("not a PNG: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("broken PNG: {e}"))?;
    let (w, h) = (info.width, info.height);
    let px = (w * h) as usize;
    let data = match info.color_type {
        png::ColorType::Rgba => buf[..px * 4].to_vec(),
        png::ColorType::Rgb => buf[..px * 3]
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf[..px * 2]
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf[..px].iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("indexed PNG left unexpanded".to_owned()),
    };
    Ok(Rgba {
        width: w,
        height: h,
        data,
    })
}

/// Encodes `img` as an RGBA PNG.
///
/// ```
/// let png = browser_tests::image::encode_png(&browser_tests::image::Rgba::filled(1, 1, [0; 4]));
/// assert_eq!(&png[1..4], b"PNG");
/// ```
pub fn encode_png(img: &Rgba) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().expect("PNG header into memory");
    w.write_image_data(&img.data).expect("PNG data into memory");
    w.finish().expect("PNG end into memory");
    out
}

/// What [`pixelmatch`] found.
pub struct Diff {
    /// Pixels whose colours differ by more than the threshold and are not anti-aliasing.
    pub mismatched: u64,
    /// Pixels that differ but were classified as anti-aliasing (not counted as mismatched).
    pub antialiased: u64,
    /// Pixels compared.
    pub total: u64,
    /// The picture pixelmatch draws: mismatches red, anti-aliasing yellow, the rest faded.
    pub image: Rgba,
}

impl Diff {
    /// Mismatched pixels as a fraction of all pixels.
    ///
    /// ```
    /// use browser_tests::image::{pixelmatch, Rgba};
    /// let a = Rgba::filled(10, 10, [255; 4]);
    /// assert_eq!(pixelmatch(&a, &a, 0.1).unwrap().ratio(), 0.0);
    /// ```
    pub fn ratio(&self) -> f64 {
        self.mismatched as f64 / self.total.max(1) as f64
    }
}

/// The pixelmatch algorithm (mapbox/pixelmatch, ISC, v5/v6; same constants): a pixel mismatches
/// when its colour difference in YIQ space (Kotsarenko & Ramos, "Measuring perceived color
/// difference using YIQ NTSC transmission color space in mobile applications", 2010) exceeds
/// `threshold` (0.1 is pixelmatch's default) of the largest possible one, unless it is
/// anti-aliasing (Vysniauskas, "Anti-aliased Pixel and Intensity Slope Detector", 2009) in
/// either picture. Both pictures must have the same size.
///
/// ```
/// use browser_tests::image::{pixelmatch, Rgba};
/// let a = Rgba::filled(4, 4, [255; 4]);
/// assert!(pixelmatch(&a, &Rgba::filled(4, 5, [255; 4]), 0.1).is_err());
/// ```
pub fn pixelmatch(a: &Rgba, b: &Rgba, threshold: f64) -> Result<Diff, String> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(format!(
            "sizes differ: {}×{} vs {}×{}",
            a.width, a.height, b.width, b.height
        ));
    }
    let (w, h) = (a.width, a.height);
    // 35215 is the largest YIQ delta (black vs white).
    let max_delta = 35215.0 * threshold * threshold;
    let mut out = Rgba::filled(w, h, [0; 4]);
    let (mut mismatched, mut antialiased) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let (pa, pb) = (a.get(x, y), b.get(x, y));
            let delta = if pa == pb { 0.0 } else { color_delta(pa, pb, false) };
            if delta.abs() > max_delta {
                if antialiased_at(a, x, y, b) || antialiased_at(b, x, y, a) {
                    antialiased += 1;
                    out.put(x, y, [255, 255, 0, 255]);
                } else {
                    mismatched += 1;
                    out.put(x, y, [255, 0, 0, 255]);
                }
            } else {
                // A faded gray copy of the first picture, as pixelmatch draws it.
                let [r, g, bl] = blend_white(&pa);
                let yv = 0.29889531 * r + 0.58662247 * g + 0.11448223 * bl;
                let v = (255.0 + (yv - 255.0) * 0.1).clamp(0.0, 255.0) as u8;
                out.put(x, y, [v, v, v, 255]);
            }
        }
    }
    Ok(Diff {
        mismatched,
        antialiased,
        total: u64::from(w) * u64::from(h),
        image: out,
    })
}

fn blend_white(p: &[u8]) -> [f64; 3] {
    let a = f64::from(p[3]) / 255.0;
    let f = |c: u8| 255.0 + (f64::from(c) - 255.0) * a;
    [f(p[0]), f(p[1]), f(p[2])]
}

/// pixelmatch's `colorDelta`: the squared YIQ distance (signed by which is brighter), or with
/// `y_only` just the brightness difference.
fn color_delta(p1: [u8; 4], p2: [u8; 4], y_only: bool) -> f64 {
    let [r1, g1, b1] = blend_white(&p1);
    let [r2, g2, b2] = blend_white(&p2);
    let y1 = 0.29889531 * r1 + 0.58662247 * g1 + 0.11448223 * b1;
    let y2 = 0.29889531 * r2 + 0.58662247 * g2 + 0.11448223 * b2;
    let y = y1 - y2;
    if y_only {
        return y;
    }
    let i = 0.59597799 * (r1 - r2) - 0.2741761 * (g1 - g2) - 0.32180189 * (b1 - b2);
    let q = 0.21147017 * (r1 - r2) - 0.52261711 * (g1 - g2) + 0.31114694 * (b1 - b2);
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
    if y1 > y2 {
        -delta
    } else {
        delta
    }
}

/// The 3×3 neighbourhood of (`x`, `y`), clamped to the picture, and whether the pixel is on an edge.
fn around(img: &Rgba, x: u32, y: u32) -> (std::ops::RangeInclusive<u32>, std::ops::RangeInclusive<u32>, bool) {
    let (x0, y0) = (x.saturating_sub(1), y.saturating_sub(1));
    let (x2, y2) = ((x + 1).min(img.width - 1), (y + 1).min(img.height - 1));
    let edge = x == x0 || x == x2 || y == y0 || y == y2;
    (x0..=x2, y0..=y2, edge)
}

/// pixelmatch's `antialiased`: (`x`, `y`) lies on an intensity slope between a darkest and a
/// brightest neighbour, one of which has many identical siblings in both pictures.
fn antialiased_at(img: &Rgba, x: u32, y: u32, other: &Rgba) -> bool {
    let (xs, ys, edge) = around(img, x, y);
    let mut zeroes = u32::from(edge);
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut min_at, mut max_at) = ((0, 0), (0, 0));
    let center = img.get(x, y);
    for ny in ys {
        for nx in xs.clone() {
            if (nx, ny) == (x, y) {
                continue;
            }
            let delta = color_delta(center, img.get(nx, ny), true);
            if delta == 0.0 {
                zeroes += 1;
                if zeroes > 2 {
                    return false;
                }
            } else if delta < min {
                min = delta;
                min_at = (nx, ny);
            } else if delta > max {
                max = delta;
                max_at = (nx, ny);
            }
        }
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    (many_siblings(img, min_at) && many_siblings(other, min_at))
        || (many_siblings(img, max_at) && many_siblings(other, max_at))
}

/// pixelmatch's `hasManySiblings`: more than two neighbours of the same colour.
fn many_siblings(img: &Rgba, (x, y): (u32, u32)) -> bool {
    let (xs, ys, edge) = around(img, x, y);
    let mut zeroes = u32::from(edge);
    let center = img.get(x, y);
    for ny in ys {
        for nx in xs.clone() {
            if (nx, ny) != (x, y) && img.get(nx, ny) == center {
                zeroes += 1;
                if zeroes > 2 {
                    return true;
                }
            }
        }
    }
    false
}

/// `image-compare`'s `MSSIMSimple` score (8×8 windows of the gray pictures): 1.0 for identical
/// pictures. Beware: its variances and covariance are window *sums*, not means (`ssim.rs`,
/// `covariance`), so against SSIM's constants a window that differs only by ±1 of gradient
/// dithering scores about 0.65 (see [`ssim`] for the standard definition).
///
/// ```
/// use browser_tests::image::{ssim_image_compare, Rgba};
/// let mut a = Rgba::filled(16, 16, [255; 4]);
/// let b = a.clone();
/// for x in 0..16 { a.put(x, 8, [0, 0, 0, 255]); }
/// assert!(ssim_image_compare(&a, &b).unwrap() < 0.99);
/// ```
pub fn ssim_image_compare(a: &Rgba, b: &Rgba) -> Result<f64, String> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(format!(
            "sizes differ: {}×{} vs {}×{}",
            a.width, a.height, b.width, b.height
        ));
    }
    image_compare::gray_similarity_structure(&image_compare::Algorithm::MSSIMSimple, &a.gray(), &b.gray())
        .map(|s| s.score)
        .map_err(|e| e.to_string())
}

/// Decodes standard base64 (with or without padding), as pages hand over binary data; `None`
/// on any other character.
///
/// ```
/// assert_eq!(browser_tests::image::base64_decode("aGk=").unwrap(), b"hi");
/// assert!(browser_tests::image::base64_decode("a$").is_none());
/// ```
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Mean SSIM (Wang, Bovik, Sheikh & Simoncelli, "Image quality assessment: from error visibility
/// to structural similarity", 2004) over the same 8×8 windows of the gray pictures as
/// [`ssim_image_compare`], with the standard window means, variances and covariance
/// (K1 = 0.01, K2 = 0.03, L = 255); windows at the right and bottom edges are cut to the picture.
///
/// ```
/// use browser_tests::image::{ssim, Rgba};
/// let a = Rgba::filled(16, 16, [200, 200, 200, 255]);
/// let mut b = a.clone();
/// // ±1 noise, as gradient dithering makes, is not a structural change.
/// for x in (0..16).step_by(2) { b.put(x, 3, [201, 201, 201, 255]); }
/// assert!(ssim(&a, &b).unwrap() > 0.99);
/// assert!(ssim(&a, &Rgba::filled(16, 16, [0, 0, 0, 255])).unwrap() < 0.1);
/// ```
pub fn ssim(a: &Rgba, b: &Rgba) -> Result<f64, String> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(format!(
            "sizes differ: {}×{} vs {}×{}",
            a.width, a.height, b.width, b.height
        ));
    }
    let (ga, gb) = (a.gray(), b.gray());
    let (w, h) = (a.width, a.height);
    let c1 = (0.01f64 * 255.0).powi(2);
    let c2 = (0.03f64 * 255.0).powi(2);
    let (mut sum, mut area) = (0.0, 0.0);
    for wy in (0..h).step_by(8) {
        for wx in (0..w).step_by(8) {
            let (x1, y1) = ((wx + 8).min(w), (wy + 8).min(h));
            let n = f64::from((x1 - wx) * (y1 - wy));
            let (mut sa, mut sb, mut saa, mut sbb, mut sab) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for y in wy..y1 {
                for x in wx..x1 {
                    let (p, q) = (f64::from(ga.get_pixel(x, y)[0]), f64::from(gb.get_pixel(x, y)[0]));
                    sa += p;
                    sb += q;
                    saa += p * p;
                    sbb += q * q;
                    sab += p * q;
                }
            }
            let (ma, mb) = (sa / n, sb / n);
            let (va, vb, cov) = (saa / n - ma * ma, sbb / n - mb * mb, sab / n - ma * mb);
            let s = ((2.0 * ma * mb + c1) * (2.0 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            sum += s * n;
            area += n;
        }
    }
    Ok(sum / area.max(1.0))
}
