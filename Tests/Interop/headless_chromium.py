"""Headless Chromium (Debian's chromium and chromium-driver) through Selenium (pip), as the browser tests drive it."""
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    sys.exit("selenium is needed: pip install selenium (and apt-get install chromium chromium-driver)")


def start():
    """A new headless browser at desktop size."""
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
